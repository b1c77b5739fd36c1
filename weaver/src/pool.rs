//! When to hand work to rayon's pool. From a thread outside the pool (the
//! thread that runs a weave), a parallel iterator passes its work to the
//! pool's threads and waits for them. That pays for many items or heavy
//! ones; for one item, or a few cheap ones, the hand-over is the larger
//! cost: threads that sleep deeply, as a resident weaver's do between
//! requests (`major serve`), take up to a millisecond to wake (measured on a
//! one-class update of guava's jar, bench/README.md, session 28).

use rayon::prelude::*;

/// Maps `items` with `f`, in order: in parallel when there are at least
/// `min` of them, else on this thread.
pub fn map<'a, T: Sync, R: Send>(
    items: &'a [T],
    min: usize,
    f: impl Fn(&'a T) -> R + Sync + Send,
) -> Vec<R> {
    if items.len() < min {
        items.iter().map(f).collect()
    } else {
        items.par_iter().map(f).collect()
    }
}

#[cfg(test)]
mod tests {
    /// The results come in the items' order, on either side of `min`.
    #[test]
    fn maps_in_order_either_way() {
        let items: Vec<u32> = (0..100).collect();
        for min in [0, 50, 101] {
            let out = super::map(&items, min, |x| x * 2);
            assert_eq!(
                out,
                items.iter().map(|x| x * 2).collect::<Vec<_>>(),
                "min {min}"
            );
        }
    }
}
