//! Host ↔ tensor helpers shared by every chapter: building int tensors from host vectors and
//! reading values back. Reads are `async` (`into_data_async`) because WebGPU can only read back
//! asynchronously; natively [`block_on`] drives them.

use burn::tensor::{Device, Int, Tensor, TensorData};

/// Runs a future to completion on the current thread (native only; the page awaits instead).
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    futures_lite::future::block_on(f)
}

thread_local! {
    /// Host reads made so far on this thread (every [`read_f32`] and [`read_i64`]): each is one
    /// host synchronization, on WebGPU a wait for the GPU. Tests and the bench count them per
    /// step (per thread, so tests running side by side do not mix their counts).
    static READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The number of host reads made so far on this thread (see [`READS`]).
pub fn reads() -> usize {
    READS.with(|r| r.get())
}

fn count_read() {
    READS.with(|r| r.set(r.get() + 1));
}

/// Reads a float tensor back to the host.
pub async fn read_f32<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    count_read();
    let data = t.into_data_async().await.expect("tensor readback failed");
    data.convert::<f32>().try_to_vec::<f32>().expect("f32 data")
}

/// Reads an int tensor back to the host.
pub async fn read_i64<const D: usize>(t: Tensor<D, Int>) -> Vec<i64> {
    count_read();
    let data = t.into_data_async().await.expect("tensor readback failed");
    data.convert::<i64>().try_to_vec::<i64>().expect("i64 data")
}

/// A `[rows, cols]` int tensor.
pub fn int_tensor(values: Vec<i64>, rows: usize, cols: usize, device: &Device) -> Tensor<2, Int> {
    Tensor::from_data(TensorData::new(values, [rows, cols]), device)
}

/// Mean next-token cross-entropy of `logits: [b, t, v]` against `targets: [b, t]` (in the graph).
pub fn cross_entropy(logits: Tensor<3>, targets: Tensor<2, Int>) -> Tensor<1> {
    let logp = burn::tensor::activation::log_softmax(logits, 2); // [b, t, v]
    let picked = logp.gather(2, targets.unsqueeze_dim::<3>(2)); // [b, t, 1]
    picked.mean().neg()
}
