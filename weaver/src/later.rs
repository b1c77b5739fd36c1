//! What a resident weaver (`major serve`) does after it has answered: the
//! drops of a weave's large values (the class index, the inputs' mappings,
//! javac's scratch directory), of the last handle on the output file the
//! weave replaced (the kernel frees a replaced file's cached pages when its
//! last reference goes, some hundred microseconds for a library's jar), and
//! the writing of the input stamps (a cache: a weave that finds them
//! missing or stale hashes its inputs instead). A client waits for none of
//! that; the server does it before it takes the next request. A process
//! does it where it stands, as if this module were not there.

use std::sync::Mutex;

/// Work left for later.
type Work = Box<dyn FnOnce() + Send>;

/// The work left for later, while it is deferred (`None`: it is not).
static LATER: Mutex<Option<Vec<Work>>> = Mutex::new(None);

/// From now on, [`later`] keeps what it is given until [`run_deferred`]:
/// for a process that answers requests.
pub fn defer() {
    let mut later = LATER.lock().unwrap_or_else(|p| p.into_inner());
    later.get_or_insert_with(Vec::new);
}

/// Runs `work`: now, or, once [`defer`] was called, at the next
/// [`run_deferred`]. It must not be needed by the answer: nothing the
/// client reads, nothing a later weave cannot do without.
pub fn later(work: impl FnOnce() + Send + 'static) {
    let mut deferred = LATER.lock().unwrap_or_else(|p| p.into_inner());
    match deferred.as_mut() {
        Some(works) => works.push(Box::new(work)),
        None => {
            drop(deferred);
            work();
        }
    }
}

/// Drops `value`, now or later ([`later`]).
pub fn drop_later<T: Send + 'static>(value: T) {
    later(move || drop(value));
}

/// Runs the work [`later`] kept, in the order given.
pub fn run_deferred() {
    let works = {
        let mut later = LATER.lock().unwrap_or_else(|p| p.into_inner());
        later.as_mut().map(std::mem::take)
    };
    for work in works.into_iter().flatten() {
        work();
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
    fn runs_now_until_deferred_then_at_the_drain_in_order() {
        let dropped = Arc::new(AtomicUsize::new(0));
        drop_later(Counted(dropped.clone()));
        assert_eq!(dropped.load(Ordering::SeqCst), 1, "not deferred: at once");
        defer();
        drop_later(Counted(dropped.clone()));
        let order = Arc::new(Mutex::new(Vec::new()));
        for k in 0..3 {
            let order = order.clone();
            later(move || order.lock().unwrap().push(k));
        }
        drop_later(Counted(dropped.clone()));
        assert_eq!(dropped.load(Ordering::SeqCst), 1, "deferred: kept");
        assert!(order.lock().unwrap().is_empty());
        run_deferred();
        assert_eq!(dropped.load(Ordering::SeqCst), 3, "drained");
        assert_eq!(*order.lock().unwrap(), [0, 1, 2]);
        run_deferred();
        assert_eq!(dropped.load(Ordering::SeqCst), 3);
        // Other tests of this binary run their work as a process does.
        *LATER.lock().unwrap() = None;
    }
}
