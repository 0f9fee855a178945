//! The order of ranked records (SPEC §11): score, then recency, then the id; a superseded
//! record never above the record that superseded it.

use std::cmp::Ordering;

/// What one ranked record carries for ordering.
pub trait Ranked {
    fn score(&self) -> i64;
    /// When it was recorded, as a sortable string: RFC 3339 (a ledger line, a promotion),
    /// or a `YYYY-MM-DD` date where nothing finer is known. Later sorts later.
    fn recency(&self) -> &str;
    fn id(&self) -> &str;
    /// The record that superseded this one, if it names one.
    fn superseded_by(&self) -> Option<&str>;
}

/// Score, then recency (newest first), then the id (the greater first: record ids begin
/// with their episode's opening time, so among records of one day the newer episode's
/// comes first): the order of any two records.
pub fn compare<R: Ranked>(a: &R, b: &R) -> Ordering {
    b.score()
        .cmp(&a.score())
        .then_with(|| b.recency().cmp(a.recency()))
        .then_with(|| b.id().cmp(a.id()))
}

/// Sorts `hits` and then moves every superseded record that ranks above the record that
/// superseded it to just below that record (chains included). A replacement missing from
/// `hits` leaves the record where it is: the caller adds replacements first.
pub fn order<R: Ranked>(hits: &mut Vec<R>) {
    // Sorted through their positions, so each (large) hit moves once, not once per
    // comparison; a stable sort of positions is the stable sort of the hits.
    let mut at: Vec<usize> = (0..hits.len()).collect();
    at.sort_by(|a, b| compare(&hits[*a], &hits[*b]));
    let mut slots: Vec<Option<R>> = hits.drain(..).map(Some).collect();
    hits.extend(at.into_iter().filter_map(|i| slots[i].take()));
    // Every move puts a record below its replacement; a cycle of replacements (a
    // hand-edited store) would move forever, so the moves are bounded.
    let mut moves = hits.len() * hits.len();
    let mut i = 0;
    while i < hits.len() && moves > 0 {
        let replacement = hits[i]
            .superseded_by()
            .and_then(|by| hits.iter().position(|h| h.id() == by));
        match replacement {
            Some(r) if r > i => {
                let record = hits.remove(i);
                // The replacement moved up by one when the record left.
                hits.insert(r, record);
                moves -= 1;
            }
            _ => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone)]
    struct H {
        id: &'static str,
        score: i64,
        recency: &'static str,
        by: Option<&'static str>,
    }

    impl Ranked for H {
        fn score(&self) -> i64 {
            self.score
        }
        fn recency(&self) -> &str {
            self.recency
        }
        fn id(&self) -> &str {
            self.id
        }
        fn superseded_by(&self) -> Option<&str> {
            self.by
        }
    }

    fn h(id: &'static str, score: i64, recency: &'static str) -> H {
        H {
            id,
            score,
            recency,
            by: None,
        }
    }

    fn ids(hits: &[H]) -> Vec<&str> {
        hits.iter().map(|h| h.id).collect()
    }

    #[test]
    fn score_then_recency_newest_first_then_the_id_greater_first() {
        let mut hits = vec![
            h("b", 5, "2026-01-01"),
            h("a", 5, "2026-01-01"),
            h("c", 5, "2026-02-01"),
            h("d", 9, "2025-01-01"),
            // A time within a day is newer than the day alone, and two times order.
            h("e", 5, "2026-02-01T09:00:00Z"),
            h("f", 5, "2026-02-01T17:30:00Z"),
        ];
        order(&mut hits);
        assert_eq!(ids(&hits), ["d", "f", "e", "c", "b", "a"]);
    }

    #[test]
    fn ids_of_one_day_order_newest_episode_first() {
        // Record ids begin with their episode's opening time.
        let mut hits = vec![
            h("20261130T090000Z-aaaaaa-000000000001", 7, "2026-11-30"),
            h("20261130T170000Z-bbbbbb-000000000002", 7, "2026-11-30"),
            h("20261130T120000Z-cccccc-000000000003", 7, "2026-11-30"),
        ];
        order(&mut hits);
        assert_eq!(
            ids(&hits),
            [
                "20261130T170000Z-bbbbbb-000000000002",
                "20261130T120000Z-cccccc-000000000003",
                "20261130T090000Z-aaaaaa-000000000001"
            ]
        );
    }

    #[test]
    fn a_superseded_record_never_ranks_above_its_replacement() {
        let mut hits = vec![
            H {
                id: "old",
                score: 100,
                recency: "2026-01-01",
                by: Some("new"),
            },
            h("other", 50, "2026-01-01"),
            H {
                id: "new",
                score: 10,
                recency: "2026-01-01",
                by: Some("newest"),
            },
            h("newest", 1, "2026-01-01"),
        ];
        order(&mut hits);
        assert_eq!(ids(&hits), ["other", "newest", "new", "old"]);
    }

    #[test]
    fn a_cycle_of_replacements_ends_with_every_record_kept_once() {
        // a → b → c → a: each names the next as its replacement. The moves are bounded, so
        // ordering ends; nothing is lost or repeated, and records outside the cycle keep
        // their place by score.
        let mut hits = vec![
            H {
                id: "a",
                score: 30,
                recency: "x",
                by: Some("b"),
            },
            H {
                id: "b",
                score: 20,
                recency: "x",
                by: Some("c"),
            },
            H {
                id: "c",
                score: 10,
                recency: "x",
                by: Some("a"),
            },
            h("top", 100, "x"),
            h("bottom", 1, "x"),
        ];
        order(&mut hits);
        assert_eq!(hits.len(), 5);
        let mut sorted = ids(&hits);
        sorted.sort();
        assert_eq!(sorted, ["a", "b", "bottom", "c", "top"]);
        assert_eq!(hits[0].id, "top");
        assert_eq!(hits[4].id, "bottom");
        // The same input always ends in the same order.
        let mut again = vec![
            hits[1].clone(),
            hits[3].clone(),
            hits[2].clone(),
            hits[0].clone(),
            hits[4].clone(),
        ];
        order(&mut again);
        assert_eq!(ids(&again), ids(&hits));
    }
}
