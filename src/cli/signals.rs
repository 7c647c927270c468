//! The signals that interrupt a command: Ctrl-C, SIGTERM and SIGHUP.

use tokio::sync::mpsc;

/// Resolves on Ctrl-C, SIGTERM or SIGHUP (a closed terminal). The handlers are in place when
/// this returns (call it inside the runtime). The signals are watched by a task of their own,
/// so the future returned costs next to nothing to poll: a match polls it on every move.
pub fn interrupted() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{SignalKind, signal};
    let (tx, rx) = tokio::sync::oneshot::channel();
    mark_stopping();
    let signals = [
        SignalKind::interrupt(),
        SignalKind::terminate(),
        SignalKind::hangup(),
    ]
    .map(signal);
    tokio::spawn(async move {
        let [int, term, hup] = signals.map(Result::ok);
        tokio::select! {
            () = received(int) => {}
            () = received(term) => {}
            () = received(hup) => {}
        }
        let _ = tx.send(());
    });
    async move {
        // A dropped sender means the watch stopped with the runtime: never interrupted.
        if rx.await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Makes Ctrl-C, SIGTERM and SIGHUP set [`crate::input::stop`]'s flag (also, with
/// [`interrupted`]'s watch), which a read on this thread looks at while the runtime waits for
/// it. Called alone, the signals no longer end the process: a command without a runtime (the
/// replay pages) looks at [`crate::input::stopping`] between its steps and cleans up.
pub fn mark_stopping() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: the action only stores to an atomic, which is async-signal-safe.
            let _ = unsafe { signal_hook_registry::register(signal, crate::input::stop) };
        }
    });
}

/// Resolves when `signal` arrives; never if its handler could not be set (then the signal's
/// default action, ending the process, stands).
async fn received(signal: Option<tokio::signal::unix::Signal>) {
    match signal {
        Some(mut signal) => {
            signal.recv().await;
        }
        None => std::future::pending().await,
    }
}

/// A stream of interrupts: 1 at the first Ctrl-C (or SIGTERM), 2 at the second.
pub fn interrupted_twice() -> mpsc::UnboundedReceiver<usize> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        for count in 1..=2 {
            interrupted().await;
            if tx.send(count).is_err() {
                return;
            }
        }
    });
    rx
}
