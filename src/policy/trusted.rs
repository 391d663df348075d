//! `[[trusted_destinations]]`: destinations the user keeps (addresses, domains, repositories,
//! IBANs, hosts, URLs, phone numbers). A critical tool (send, pay, transfer, invite, share,
//! merge, publish) may send to one of them without asking, and neither the unknown- nor the
//! output-destination rule asks about them. A weakening setting: it counts only from the
//! protected config file, like `[allow]`.
//!
//! ```toml
//! [[trusted_destinations]]
//! value = "payroll@acme.example"
//! kind = "email"          # email | domain | repo | iban | host | url | phone
//! ```

use crate::provenance::{self, kind, HostCtx, Val};

/// Most entries the list may hold.
pub const MAX_ENTRIES: usize = 1000;

/// What an entry names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustKind {
    /// One address (`name@host`).
    Email,
    /// A domain and every host and address under it.
    Domain,
    /// One repository, `owner/name`.
    Repo,
    /// One IBAN.
    Iban,
    /// One host (and URLs and addresses on it).
    Host,
    /// One URL and the URLs below it (`https://hooks.example/x` covers `…/x/y` and `…/x?a=1`).
    Url,
    /// One phone number (compared by its digits, E.164 without the `+`).
    Phone,
}

/// One entry, its value in the canonical form the extractor gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedDestination {
    /// What it names.
    pub kind: TrustKind,
    /// The canonical value (`provenance::extract`'s form for the kind).
    pub value: String,
}

impl TrustedDestination {
    /// Parses one entry.
    ///
    /// # Errors
    ///
    /// `trusted_destinations: '<value>' is not a valid <kind>`, or an unknown kind:
    /// `trusted_destinations: kind '<k>' is not one of email, domain, repo, iban, host, url, phone`.
    pub fn parse(value: &str, kind_name: &str) -> Result<TrustedDestination, String> {
        let v = value.trim();
        let bad = || format!("trusted_destinations: '{v}' is not a valid {kind_name}");
        let first = |k: &str| {
            provenance::extract(v)
                .into_iter()
                .find(|x| x.kind == k)
                .map(|x| x.text)
        };
        let (kind, value) = match kind_name {
            "email" => (TrustKind::Email, first(kind::EMAIL).ok_or_else(bad)?),
            "domain" => (
                TrustKind::Domain,
                provenance::canonical_host(v.trim_start_matches("*."), HostCtx::Strong)
                    .ok_or_else(bad)?,
            ),
            "host" => (
                TrustKind::Host,
                provenance::canonical_host(v, HostCtx::Strong).ok_or_else(bad)?,
            ),
            "repo" => {
                let (o, n) = v.split_once('/').ok_or_else(bad)?;
                (TrustKind::Repo, provenance::repo_of(o, n).ok_or_else(bad)?)
            }
            "iban" => (TrustKind::Iban, first(kind::IBAN).ok_or_else(bad)?),
            "url" => (TrustKind::Url, first(kind::URL).ok_or_else(bad)?),
            "phone" => {
                let d: String = v.chars().filter(char::is_ascii_digit).collect();
                if !(7..=15).contains(&d.len()) {
                    return Err(bad());
                }
                (TrustKind::Phone, d)
            }
            k => {
                return Err(format!(
                    "trusted_destinations: kind '{k}' is not one of email, domain, repo, iban, host, url, phone"
                ))
            }
        };
        Ok(TrustedDestination { kind, value })
    }

    /// True when this entry covers the extracted value `x`.
    pub fn covers(&self, x: &Val) -> bool {
        let v = self.value.as_str();
        let under = |h: &str| h == v || h.ends_with(&format!(".{v}"));
        let host_of_url = |u: &str| {
            u.split_once("://")
                .and_then(|(_, r)| r.split(['/', '?', '#']).next())
                .map(|a| a.rsplit_once('@').map_or(a, |(_, h)| h))
                .map(|h| h.rsplit_once(':').map_or(h, |(h, _)| h).to_string())
        };
        match (self.kind, x.kind) {
            (TrustKind::Email, kind::EMAIL) => x.text == v,
            (TrustKind::Domain, kind::HOST | kind::DOMAIN) => under(&x.text),
            (TrustKind::Domain, kind::EMAIL) => {
                x.text.rsplit_once('@').is_some_and(|(_, h)| under(h))
            }
            (TrustKind::Domain, kind::URL) => host_of_url(&x.text).is_some_and(|h| under(&h)),
            (TrustKind::Host, kind::HOST) => x.text == v,
            (TrustKind::Host, kind::EMAIL) => x.text.rsplit_once('@').is_some_and(|(_, h)| h == v),
            (TrustKind::Host, kind::URL) => host_of_url(&x.text).as_deref() == Some(v),
            (TrustKind::Repo, kind::REPO) => x.text == v,
            (TrustKind::Iban, kind::IBAN) => x.text == v,
            (TrustKind::Url, kind::URL) => {
                x.text == v
                    || x.text
                        .strip_prefix(v)
                        .is_some_and(|r| r.starts_with(['/', '?', '#']))
            }
            (TrustKind::Url, kind::HOST) => host_of_url(v).as_deref() == Some(x.text.as_str()),
            (TrustKind::Phone, kind::NUMBER) => x.text == v,
            _ => false,
        }
    }
}

/// Parses the config file's `trusted_destinations`: an array of tables (`[[trusted_destinations]]`)
/// or an inline array of inline tables, each with a string `value` and `kind`.
///
/// # Errors
///
/// A message naming what is wrong: not an array of tables, an entry without `value` or `kind`,
/// more than [`MAX_ENTRIES`] entries, or a value [`TrustedDestination::parse`] refuses.
pub fn from_toml(item: &toml_edit::Item) -> Result<Vec<TrustedDestination>, String> {
    const SHAPE: &str =
        "trusted_destinations must be an array of tables with a string value and kind";
    let mut out = Vec::new();
    let mut add = |t: &dyn toml_edit::TableLike| -> Result<(), String> {
        if out.len() >= MAX_ENTRIES {
            return Err(format!(
                "trusted_destinations has more than {MAX_ENTRIES} entries"
            ));
        }
        for (k, _) in t.iter() {
            if k != "value" && k != "kind" {
                return Err(format!(
                    "trusted_destinations: unknown key '{k}' (value, kind)"
                ));
            }
        }
        let value = t.get("value").and_then(|v| v.as_str()).ok_or(SHAPE)?;
        let kind = t.get("kind").and_then(|v| v.as_str()).ok_or(SHAPE)?;
        if value.len() > 1024 {
            return Err("trusted_destinations: a value is longer than 1024 bytes".into());
        }
        out.push(TrustedDestination::parse(value, kind)?);
        Ok(())
    };
    if let Some(arr) = item.as_array_of_tables() {
        for t in arr.iter() {
            add(t)?;
        }
    } else if let Some(arr) = item.as_array() {
        for v in arr.iter() {
            add(v.as_inline_table().ok_or(SHAPE)?)?;
        }
    } else {
        return Err(SHAPE.into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn val(k: &'static str, t: &str) -> Val {
        Val {
            kind: k,
            text: t.into(),
        }
    }

    #[test]
    fn entries_cover_their_destinations_in_every_form() {
        let d = TrustedDestination::parse("Acme.example", "domain").unwrap();
        assert!(d.covers(&val(kind::HOST, "mail.acme.example")));
        assert!(d.covers(&val(kind::EMAIL, "pay@acme.example")));
        assert!(d.covers(&val(kind::URL, "https://api.acme.example/x?y=1")));
        assert!(!d.covers(&val(kind::HOST, "evilacme.example")));
        let e = TrustedDestination::parse("Payroll@Acme.example", "email").unwrap();
        assert!(e.covers(&val(kind::EMAIL, "payroll@acme.example")));
        assert!(!e.covers(&val(kind::EMAIL, "other@acme.example")));
        let r = TrustedDestination::parse("Acme/App", "repo").unwrap();
        assert!(r.covers(&val(kind::REPO, "acme/app")));
        let i = TrustedDestination::parse("DE89 3704 0044 0532 0130 00", "iban").unwrap();
        assert!(i.covers(&val(kind::IBAN, "DE89370400440532013000")));
        let p = TrustedDestination::parse("+1 555 0100 123", "phone").unwrap();
        assert!(p.covers(&val(kind::NUMBER, "15550100123")));
        let u = TrustedDestination::parse("https://hooks.example.com/team", "url").unwrap();
        assert!(u.covers(&val(kind::URL, "https://hooks.example.com/team/x")));
        assert!(!u.covers(&val(kind::URL, "https://hooks.example.com/teamevil")));
        let h = TrustedDestination::parse("3405803783", "host");
        assert!(h.is_err(), "a bare number is not a host outside a URL");
        let h = TrustedDestination::parse("203.0.113.7", "host").unwrap();
        assert!(h.covers(&val(kind::URL, "http://203.0.113.7/v")));
        assert!(TrustedDestination::parse("x", "planet").is_err());
        assert!(TrustedDestination::parse("not an address", "email").is_err());
    }

    #[test]
    fn both_toml_shapes_parse() {
        let doc: toml_edit::DocumentMut =
            "[[trusted_destinations]]\nvalue = \"acme.example\"\nkind = \"domain\"\n"
                .parse()
                .unwrap();
        assert_eq!(from_toml(&doc["trusted_destinations"]).unwrap().len(), 1);
        let doc: toml_edit::DocumentMut =
            "trusted_destinations = [{ value = \"acme/app\", kind = \"repo\" }]"
                .parse()
                .unwrap();
        assert_eq!(from_toml(&doc["trusted_destinations"]).unwrap().len(), 1);
        let doc: toml_edit::DocumentMut = "trusted_destinations = \"x\"".parse().unwrap();
        assert!(from_toml(&doc["trusted_destinations"]).is_err());
        let doc: toml_edit::DocumentMut =
            "trusted_destinations = [{ value = \"a\", kind = \"repo\", x = 1 }]"
                .parse()
                .unwrap();
        assert!(from_toml(&doc["trusted_destinations"]).is_err());
    }
}
