//! A task the runtime started and stops: aborted when its handle is dropped, so a read or a
//! stream lives exactly as long as whatever holds it.

pub(super) struct Task(pub tokio::task::JoinHandle<()>);

impl Drop for Task {
    fn drop(&mut self) {
        self.0.abort();
    }
}
