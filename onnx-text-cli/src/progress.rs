//! A progress bar on standard error, for inputs large enough to wait for.
//!
//! It is drawn only when standard error is a terminal, from a thread that redraws ten times a
//! second: a bar with a percentage for the stages whose size is known (reading, writing), and a
//! spinner with the elapsed time for the others (parsing, printing).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Inputs at least this large get a progress bar.
pub const THRESHOLD: u64 = 8 * 1024 * 1024;

const WIDTH: usize = 30;

struct Shared {
    label: Mutex<String>,
    done: AtomicU64,
    /// 0 when the size of the stage is not known.
    total: AtomicU64,
    stop: AtomicBool,
}

/// A progress display; every method does nothing when it is disabled.
pub struct Progress {
    shared: Option<Arc<Shared>>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// A display for work on `size` bytes: shown only if `enabled`, the input is at least
    /// [`THRESHOLD`] bytes and standard error is a terminal.
    pub fn new(enabled: bool, size: u64) -> Progress {
        if !enabled || size < THRESHOLD || !std::io::stderr().is_terminal() {
            return Progress {
                shared: None,
                thread: None,
            };
        }
        let shared = Arc::new(Shared {
            label: Mutex::new(String::new()),
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        });
        let drawer = Arc::clone(&shared);
        let thread = std::thread::spawn(move || draw_loop(&drawer));
        Progress {
            shared: Some(shared),
            thread: Some(thread),
        }
    }

    /// Starts a stage: `total` bytes of work, or `None` if unknown (a spinner).
    pub fn stage(&self, label: &str, total: Option<u64>) {
        if let Some(shared) = &self.shared {
            if let Ok(mut l) = shared.label.lock() {
                label.clone_into(&mut l);
            }
            shared.done.store(0, Ordering::Relaxed);
            shared.total.store(total.unwrap_or(0), Ordering::Relaxed);
        }
    }

    /// Records `n` more bytes of the current stage done.
    pub fn advance(&self, n: u64) {
        if let Some(shared) = &self.shared {
            shared.done.fetch_add(n, Ordering::Relaxed);
        }
    }
}

impl Drop for Progress {
    /// Stops the drawing thread and clears the line.
    fn drop(&mut self) {
        if let Some(shared) = &self.shared {
            shared.stop.store(true, Ordering::Relaxed);
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn draw_loop(shared: &Shared) {
    let start = Instant::now();
    let mut stderr = std::io::stderr();
    let mut tick = 0usize;
    while !shared.stop.load(Ordering::Relaxed) {
        let label = shared.label.lock().map(|l| l.clone()).unwrap_or_default();
        let line = render(
            &label,
            shared.done.load(Ordering::Relaxed),
            shared.total.load(Ordering::Relaxed),
            tick,
            start.elapsed(),
        );
        let _ = write!(stderr, "\r\x1b[2K{line}");
        let _ = stderr.flush();
        tick += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = write!(stderr, "\r\x1b[2K");
    let _ = stderr.flush();
}

/// One line of the display.
fn render(label: &str, done: u64, total: u64, tick: usize, elapsed: Duration) -> String {
    if total == 0 {
        const SPINNER: [char; 4] = ['|', '/', '-', '\\'];
        return format!(
            "{label} {} {:.1}s",
            SPINNER[tick % SPINNER.len()],
            elapsed.as_secs_f64()
        );
    }
    let fraction = (done as f64 / total as f64).clamp(0.0, 1.0);
    let filled = (fraction * WIDTH as f64) as usize;
    format!(
        "{label} [{}{}] {:3.0}% {:.1}/{:.1} MB",
        "=".repeat(filled),
        " ".repeat(WIDTH - filled),
        fraction * 100.0,
        done as f64 / 1e6,
        total as f64 / 1e6
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_bar_and_a_spinner() {
        assert_eq!(
            render("reading", 5_000_000, 10_000_000, 0, Duration::ZERO),
            format!(
                "reading [{}{}]  50% 5.0/10.0 MB",
                "=".repeat(15),
                " ".repeat(15)
            )
        );
        assert_eq!(
            render("parsing", 0, 0, 1, Duration::from_millis(1500)),
            "parsing / 1.5s"
        );
    }

    #[test]
    fn small_inputs_get_no_display() {
        let progress = Progress::new(true, 10);
        assert!(progress.shared.is_none());
        progress.stage("reading", Some(10));
        progress.advance(10);
    }
}
