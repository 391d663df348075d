//! The contracts' state: budget spending (`contract_spend`, schema 7) and the distinct
//! approvers of one call (for approval level 2).

use super::{now, Result, Store};
use crate::contracts::budget::{Spend, Spent};
use rusqlite::params;

/// Spending rows older than this are pruned by [`Store::prune_contract_spend`] (seconds): 2
/// days (a day's budget needs only today's rows; a session's, its own).
pub const SPEND_TTL: i64 = 2 * 24 * 3600;

impl Store {
    /// What the budget `key` spent: by `session`, and by every session on UTC `day`.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn contract_spent(&self, key: &str, session: &str, day: i64) -> Result<Spent> {
        let mut st = self.conn.prepare_cached(
            "SELECT coalesce(sum(CASE WHEN session_id=?2 THEN amount END), 0),
                    coalesce(sum(CASE WHEN day=?3 THEN amount END), 0)
             FROM contract_spend WHERE budget=?1 AND (session_id=?2 OR day=?3)",
        )?;
        Ok(st.query_row(params![key, session, day], |r| {
            Ok(Spent {
                session: r.get(0)?,
                day: r.get(1)?,
            })
        })?)
    }

    /// Records one allowed call's spending.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn record_spend(&self, session: &str, s: &Spend) -> Result<()> {
        self.conn.execute(
            "INSERT INTO contract_spend(budget, session_id, day, amount, ts) VALUES(?1, ?2, ?3, ?4, ?5)",
            params![s.key, session, s.day, s.units, now()],
        )?;
        Ok(())
    }

    /// Drops spending rows older than [`SPEND_TTL`]; returns how many.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn prune_contract_spend(&self) -> Result<usize> {
        Ok(self.conn.execute(
            "DELETE FROM contract_spend WHERE ts < ?1",
            [now() - SPEND_TTL],
        )?)
    }

    /// The unused, unexpired approvals of this exact call (as
    /// [`Store::pending_approval`]) with the user id that granted each, newest first: a call
    /// that needs two people is approved once two of them carry distinct user ids.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn pending_approvers(
        &self,
        harness: &str,
        session: &str,
        tool: &str,
        digest: &str,
        ttl: i64,
    ) -> Result<Vec<(i64, Option<i64>)>> {
        let t = now();
        let mut st = self.conn.prepare_cached(
            "SELECT decision_id, uid FROM approvals
             WHERE harness=?1 AND session_id=?2 AND tool=?3 AND args_digest=?4 AND used_at IS NULL
               AND expires_at>?5 AND created_at>?5-?6
             ORDER BY decision_id DESC LIMIT 20",
        )?;
        let rows = st.query_map(params![harness, session, tool, digest, t, ttl], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
        Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
    }
}

/// Two approvals by distinct known user ids among `rows`, if any: their decision ids.
pub fn two_approvers(rows: &[(i64, Option<i64>)]) -> Option<(i64, i64)> {
    for (i, (a, ua)) in rows.iter().enumerate() {
        for (b, ub) in &rows[i + 1..] {
            if let (Some(x), Some(y)) = (ua, ub) {
                if x != y {
                    return Some((*a, *b));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spending_sums_by_session_and_day() {
        let s = Store::open_in_memory().unwrap();
        let sp = |units, day| Spend {
            key: "payment.transfer".into(),
            units,
            day,
        };
        s.record_spend("a", &sp(100, 10)).unwrap();
        s.record_spend("a", &sp(50, 11)).unwrap();
        s.record_spend("b", &sp(7, 11)).unwrap();
        let other = Spend {
            key: "other".into(),
            units: 1000,
            day: 11,
        };
        s.record_spend("a", &other).unwrap();
        assert_eq!(
            s.contract_spent("payment.transfer", "a", 11).unwrap(),
            Spent {
                session: 150,
                day: 57
            }
        );
        assert_eq!(
            s.contract_spent("payment.transfer", "c", 12).unwrap(),
            Spent::default()
        );
    }

    #[test]
    fn two_distinct_approvers() {
        assert_eq!(two_approvers(&[(3, Some(1000)), (2, Some(1000))]), None);
        assert_eq!(two_approvers(&[(3, Some(1000)), (2, None)]), None);
        assert_eq!(
            two_approvers(&[(3, Some(1000)), (2, Some(1000)), (1, Some(1001))]),
            Some((3, 1))
        );
    }
}
