//! Budgets: a cumulative limit on one numeric parameter of a contracted tool, per session and
//! per day (UTC), across every contract of the same action (`payment.transfer` for
//! `send_money` and `schedule_transaction` alike).
//!
//! Amounts are kept as whole units: the parameter times `scale` (`scale = 100`: cents), rounded
//! up, so that a budget of 100000 with scale 100 is 1000.00. The hook reads what was spent and
//! records a call's spending in the one `BEGIN IMMEDIATE` transaction that also records the
//! decision (`crate::hook`): a second process waits for the write lock and then sees the first
//! one's spending, so two concurrent calls cannot both spend the last of a budget.

/// One budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    /// The parameter it counts (a declared number).
    pub param: String,
    /// Units per one of the parameter (`100`: the parameter is in currency, the limits in cents).
    pub scale: i64,
    /// Most units one session may spend.
    pub per_session: Option<i64>,
    /// Most units all sessions together may spend in one UTC day.
    pub per_day: Option<i64>,
}

/// Most units any limit may be (keeps every sum far from overflow).
pub const MAX_UNITS: i64 = 1 << 52;

impl Budget {
    /// Parses `{ param, scale, per_session, per_day }`.
    ///
    /// # Errors
    ///
    /// An unknown key, a missing `param`, a `scale` or limit that is not a whole number from 1
    /// (0 for a limit) to 2^52, or neither limit given.
    pub fn from_toml(t: &dyn toml_edit::TableLike) -> Result<Budget, String> {
        for (k, _) in t.iter() {
            if !matches!(k, "param" | "scale" | "per_session" | "per_day") {
                return Err(format!(
                    "unknown key '{}' (known keys: param, scale, per_session, per_day)",
                    k.chars().take(64).collect::<String>()
                ));
            }
        }
        let param = t
            .get("param")
            .and_then(|v| v.as_str())
            .ok_or("param is required (the numeric param it counts)")?
            .to_string();
        let int = |k: &str, min: i64| -> Result<Option<i64>, String> {
            match t.get(k) {
                None => Ok(None),
                Some(v) => match v.as_integer() {
                    Some(i) if (min..=MAX_UNITS).contains(&i) => Ok(Some(i)),
                    _ => Err(format!("{k} must be a whole number from {min} to 2^52")),
                },
            }
        };
        let b = Budget {
            param,
            scale: int("scale", 1)?.unwrap_or(1),
            per_session: int("per_session", 0)?,
            per_day: int("per_day", 0)?,
        };
        if b.per_session.is_none() && b.per_day.is_none() {
            return Err("give per_session, per_day or both".into());
        }
        Ok(b)
    }

    /// The units a call's value spends (`value * scale`, rounded up), or `None` when the
    /// value is negative, not finite or past [`MAX_UNITS`].
    pub fn units(&self, value: f64) -> Option<i64> {
        let u = (value * self.scale as f64).ceil();
        (value.is_finite() && value >= 0.0 && u <= MAX_UNITS as f64).then_some(u as i64)
    }

    /// Why spending `units` more is refused, given what was `spent`; `None` when it fits.
    pub fn exceeded(&self, spent: &Spent, units: i64) -> Option<String> {
        let show = |u: i64| {
            if self.scale == 1 {
                u.to_string()
            } else {
                format!("{:.2}", u as f64 / self.scale as f64)
            }
        };
        if let Some(limit) = self.per_session {
            if spent.session.saturating_add(units) > limit {
                return Some(format!(
                    "{} of {} would make {} this session, over its budget of {} ({} already spent)",
                    show(units),
                    self.param,
                    show(spent.session.saturating_add(units)),
                    show(limit),
                    show(spent.session)
                ));
            }
        }
        if let Some(limit) = self.per_day {
            if spent.day.saturating_add(units) > limit {
                return Some(format!(
                    "{} of {} would make {} today, over the daily budget of {} ({} already spent)",
                    show(units),
                    self.param,
                    show(spent.day.saturating_add(units)),
                    show(limit),
                    show(spent.day)
                ));
            }
        }
        None
    }
}

/// What was spent already, in units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spent {
    /// By this session.
    pub session: i64,
    /// By all sessions this UTC day.
    pub day: i64,
}

/// One call's spending, recorded when the call is allowed ([`crate::session::Effect::Spend`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spend {
    /// The budget's key: the contract's label (its action, else its tool pattern).
    pub key: String,
    /// Units.
    pub units: i64,
    /// The UTC day (Unix seconds / 86400).
    pub day: i64,
}

/// The UTC day of Unix time `t`.
pub fn day_of(t: i64) -> i64 {
    t.div_euclid(86_400)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget() -> Budget {
        Budget {
            param: "amount".into(),
            scale: 100,
            per_session: Some(100_000),
            per_day: Some(150_000),
        }
    }

    #[test]
    fn units_and_limits() {
        let b = budget();
        assert_eq!(b.units(98.7), Some(9870));
        assert_eq!(b.units(0.001), Some(1), "rounded up");
        assert_eq!(b.units(-1.0), None);
        assert_eq!(b.units(f64::INFINITY), None);
        assert_eq!(b.units(1e300), None);
        let none = Spent::default();
        assert!(b.exceeded(&none, 100_000).is_none(), "the last cent fits");
        let m = b.exceeded(&none, 100_001).unwrap();
        assert!(m.contains("1000.01") && m.contains("this session"), "{m}");
        let day = Spent {
            session: 0,
            day: 100_000,
        };
        assert!(b.exceeded(&day, 60_000).unwrap().contains("daily"));
    }
}
