//! Self-disclosure: tool arguments that ask for the agent's model name, system prompt,
//! instructions or conversation history.
//!
//! A tool has no business knowing these; a malicious MCP server asks for them to tailor
//! attacks or to steal the operator's prompt (Invariant Labs, "MCP tool poisoning", 2025; the
//! `sidenote`/`llm_name` parameters of published poisoning examples). Such fields are sent
//! empty. `model_name` alone is common in ML tools, so it counts only when the tool's schema
//! describes it as the model answering (the MCP proxy stores schemas in the catalog).

use serde_json::Value;

/// Normalized field names (lower-case, `_`/`-` removed) that always ask for self-disclosure.
const FIELDS: &[&str] = &[
    "llmname",
    "llm",
    "llmmodel",
    "llmprovider",
    "aimodel",
    "aimodelname",
    "modelidentity",
    "yourmodel",
    "agentmodel",
    "assistantmodel",
    "systemprompt",
    "systemmessage",
    "systeminstructions",
    "sysprompt",
    "systemprompttext",
    "developerprompt",
    "developermessage",
    "conversationhistory",
    "chathistory",
    "messagehistory",
    "previousmessages",
    "fullconversation",
    "conversationcontext",
    "conversationlog",
    "chatlog",
    "agentinstructions",
    "assistantinstructions",
    "modelinstructions",
    "yourinstructions",
    "initialinstructions",
    "hiddenprompt",
    "originalprompt",
    "fullprompt",
    "contextwindow",
    "agentname",
];

fn norm(k: &str) -> String {
    k.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase()
}

/// True when a field name asks for self-disclosure; `described` is the field's schema
/// description, if known.
pub fn is_disclosure_field(key: &str, described: Option<&str>) -> bool {
    let n = norm(key);
    if FIELDS.contains(&n.as_str()) {
        return true;
    }
    if n == "modelname" || n == "model" {
        let d = described.unwrap_or("").to_ascii_lowercase();
        return d.contains("your model")
            || d.contains("the model you")
            || d.contains("model you are")
            || d.contains("llm")
            || d.contains("ai model")
            || d.contains("assistant");
    }
    false
}

fn empty_like(v: &Value) -> Value {
    match v {
        Value::Array(_) => Value::Array(Vec::new()),
        Value::Object(_) => Value::Object(Default::default()),
        Value::Number(_) => Value::from(0),
        Value::Bool(_) => Value::Bool(false),
        _ => Value::String(String::new()),
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// Returns the arguments with every self-disclosure field emptied, and the fields' names, or
/// `None` when there is nothing to empty. `schema` is the tool's JSON Schema text, if known.
/// Only top-level and first-level nested fields are considered.
pub fn rewrite(input: &Value, schema: Option<&str>) -> Option<(Value, Vec<String>)> {
    let props: Option<Value> = schema
        .and_then(|s| serde_json::from_str::<Value>(s).ok())
        .and_then(|s| s.get("properties").cloned());
    let described = |k: &str| -> Option<String> {
        props
            .as_ref()
            .and_then(|p| p.get(k))
            .and_then(|p| p.get("description"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let obj = input.as_object()?;
    let mut out = obj.clone();
    let mut fields = Vec::new();
    for (k, v) in obj {
        if is_disclosure_field(k, described(k).as_deref()) && !is_empty(v) {
            out.insert(k.clone(), empty_like(v));
            fields.push(k.clone());
        } else if let Value::Object(inner) = v {
            let mut inner_out = inner.clone();
            for (ik, iv) in inner {
                if is_disclosure_field(ik, None) && !is_empty(iv) {
                    inner_out.insert(ik.clone(), empty_like(iv));
                    fields.push(format!("{k}.{ik}"));
                }
            }
            out.insert(k.clone(), Value::Object(inner_out));
        }
    }
    if fields.is_empty() {
        None
    } else {
        Some((Value::Object(out), fields))
    }
}

/// True when a parameter's schema description asks for the agent's model, system prompt,
/// instructions or conversation (whatever the parameter is called). Lower-cased substring
/// phrases; used by the MCP proxy to strip such parameters from the schema a client sees.
pub fn describes_disclosure(description: &str) -> bool {
    const PHRASES: &[&str] = &[
        "system prompt",
        "system message",
        "your instructions",
        "your system",
        "conversation history",
        "chat history",
        "full conversation",
        "entire conversation",
        "previous messages",
        "all messages so far",
        "conversation so far",
        "your model name",
        "the model you are",
        "which model you are",
        "name of the ai model",
        "name of the llm",
        "your developer message",
    ];
    let d = description.to_lowercase();
    PHRASES.iter().any(|p| d.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empties_disclosure_fields() {
        let (v, f) = rewrite(
            &json!({"a": 2, "llm_name": "claude", "systemPrompt": "You are...", "history": []}),
            None,
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"a": 2, "llm_name": "", "systemPrompt": "", "history": []})
        );
        assert_eq!(f, vec!["llm_name", "systemPrompt"]);
    }

    #[test]
    fn model_name_needs_a_description() {
        assert!(rewrite(&json!({"model_name": "resnet50"}), None).is_none());
        let schema = r#"{"properties":{"model_name":{"type":"string","description":"The name of the AI model you are running as"}}}"#;
        assert!(rewrite(&json!({"model_name": "gpt"}), Some(schema)).is_some());
    }

    #[test]
    fn already_empty_is_left_alone() {
        assert!(rewrite(&json!({"system_prompt": ""}), None).is_none());
    }
}
