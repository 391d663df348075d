//! The self-disclosure recogniser on real tool schemas: the benign parameter descriptions of the
//! GitHub MCP server and the reference MCP servers (../shared/corpora) must keep their
//! parameters (none is taken for a request for the agent's model, prompt or conversation).

use intentshield::policy::disclosure::is_disclosure_field;
use serde_json::Value;

fn corpus(name: &str) -> Option<String> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpora")
        .join(name);
    std::fs::read_to_string(p).ok()
}

#[test]
fn benign_schemas_keep_their_parameters() {
    let mut params = 0;
    let mut stripped = Vec::new();
    for f in [
        "github_mcp_server_descriptions.jsonl",
        "mcp_official_servers_descriptions.jsonl",
        "agentdojo_tool_descriptions.jsonl",
    ] {
        let Some(text) = corpus(f) else {
            eprintln!("skipping {f}: corpus not present");
            continue;
        };
        for line in text.lines() {
            let Ok(d) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let desc = d["text"].as_str().unwrap_or("");
            let meta = &d["meta"];
            let Some(param) = meta["param"].as_str() else {
                continue;
            };
            params += 1;
            if is_disclosure_field(param, Some(desc)) {
                stripped.push(format!("{f}: {param}: {desc}"));
            }
        }
    }
    eprintln!(
        "{params} parameters, {} taken for self-disclosure",
        stripped.len()
    );
    assert!(stripped.is_empty(), "{stripped:#?}");
}

#[test]
fn the_calling_models_name_is_recognised_whatever_the_parameter_is_called() {
    let d = "the name of the model that is calling this tool";
    for k in ["llm_model_name", "model_name", "caller", "x"] {
        assert!(is_disclosure_field(k, Some(d)), "{k}");
    }
    assert!(!is_disclosure_field(
        "model_name",
        Some("The Hugging Face model to fine-tune")
    ));
}
