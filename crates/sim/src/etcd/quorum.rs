//! Quorum arithmetic of Raft as pure functions.

/// Votes needed for a majority of `voters` members (n=1:1, 2:2, 3:2, 4:3, 5:3 ...).
pub fn quorum(voters: usize) -> usize {
    voters / 2 + 1
}

/// How many members may fail while a majority remains: `n − quorum(n)`.
pub fn failures_tolerated(voters: usize) -> usize {
    voters.saturating_sub(quorum(voters))
}

/// Whether `up` members out of `voters` form a majority.
pub fn has_quorum(up: usize, voters: usize) -> bool {
    voters > 0 && up >= quorum(voters)
}

/// The highest index replicated on a majority, given each voter's match index
/// (the commit rule of Raft, before the current-term check).
pub fn committed_index(match_indexes: &mut [u64]) -> u64 {
    if match_indexes.is_empty() {
        return 0;
    }
    // The natural order, as the apiserver sorts its u64s: one compiled sort for both (wasm size).
    match_indexes.sort_unstable();
    match_indexes[match_indexes.len() - quorum(match_indexes.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quorum_table() {
        // docs/behaviour.md: n=1:1, 2:2, 3:2, 4:3, 5:3, 6:4, 7:4
        let table = [
            (1, 1, 0),
            (2, 2, 0),
            (3, 2, 1),
            (4, 3, 1),
            (5, 3, 2),
            (6, 4, 2),
            (7, 4, 3),
        ];
        for (n, q, f) in table {
            assert_eq!(quorum(n), q, "quorum({n})");
            assert_eq!(failures_tolerated(n), f, "failures_tolerated({n})");
        }
    }

    #[test]
    fn even_member_adds_no_tolerance() {
        for n in [1, 3, 5, 7] {
            assert_eq!(failures_tolerated(n), failures_tolerated(n + 1));
        }
    }

    #[test]
    fn has_quorum_table() {
        assert!(!has_quorum(0, 0));
        assert!(has_quorum(2, 3));
        assert!(!has_quorum(1, 3));
        assert!(!has_quorum(2, 4));
        assert!(has_quorum(3, 5));
    }

    #[test]
    fn committed_index_table() {
        assert_eq!(committed_index(&mut []), 0);
        assert_eq!(committed_index(&mut [5]), 5);
        assert_eq!(committed_index(&mut [5, 3, 1]), 3);
        assert_eq!(committed_index(&mut [5, 5, 1, 1]), 1);
        assert_eq!(committed_index(&mut [9, 7, 7, 2, 1]), 7);
    }
}
