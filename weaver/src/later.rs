//! What a resident weaver (`major serve`) does after it has answered: the
//! drops of a weave's large values (the class index, the inputs' mappings,
//! javac's scratch directory) and of the last handle on the output file the
//! weave replaced (the kernel frees a replaced file's cached pages when its
//! last reference goes, some hundred microseconds for a library's jar). A
//! client waits for none of that. A process drops them where it stands, as
//! if this module were not there.

use std::any::Any;
use std::sync::Mutex;

/// The values left to drop, while drops are deferred (`None`: they are not).
static LATER: Mutex<Option<Vec<Box<dyn Any + Send>>>> = Mutex::new(None);

/// From now on, [`drop_later`] keeps what it is given until
/// [`drop_deferred`]: for a process that answers requests.
pub fn defer_drops() {
    let mut later = LATER.lock().unwrap_or_else(|p| p.into_inner());
    later.get_or_insert_with(Vec::new);
}

/// Drops `value`: now, or, once [`defer_drops`] was called, at the next
/// [`drop_deferred`].
pub fn drop_later<T: Send + 'static>(value: T) {
    let mut later = LATER.lock().unwrap_or_else(|p| p.into_inner());
    match later.as_mut() {
        Some(values) => values.push(Box::new(value)),
        None => {
            drop(later);
            drop(value);
        }
    }
}

/// Drops every value [`drop_later`] kept, in the order given.
pub fn drop_deferred() {
    let values = {
        let mut later = LATER.lock().unwrap_or_else(|p| p.into_inner());
        later.as_mut().map(std::mem::take)
    };
    for v in values.into_iter().flatten() {
        drop(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn drops_now_until_deferred_then_at_the_drain() {
        let dropped = Arc::new(AtomicUsize::new(0));
        drop_later(Counted(dropped.clone()));
        assert_eq!(dropped.load(Ordering::SeqCst), 1, "not deferred: at once");
        defer_drops();
        drop_later(Counted(dropped.clone()));
        drop_later(Counted(dropped.clone()));
        assert_eq!(dropped.load(Ordering::SeqCst), 1, "deferred: kept");
        drop_deferred();
        assert_eq!(dropped.load(Ordering::SeqCst), 3, "drained");
        drop_deferred();
        assert_eq!(dropped.load(Ordering::SeqCst), 3);
        // Other tests of this binary drop as a process does.
        *LATER.lock().unwrap() = None;
    }
}
