fn main() {
    let s = std::env::args().nth(1).unwrap();
    let o = brush_parser::ParserOptions::default();
    let t = brush_parser::uncached_tokenize_str(&s, &o.tokenizer_options());
    match t {
        Err(e) => println!("tok err {e:?}"),
        Ok(t) => match brush_parser::parse_tokens(&t, &o) {
            Ok(p) => println!("{p:#?}"),
            Err(e) => println!("parse err {e:?}"),
        },
    }
    if let Some(w) = std::env::args().nth(2) {
        println!("{:#?}", brush_parser::word::parse(&w, &o));
    }
}
