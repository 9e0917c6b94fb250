package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.WeightMatrix;
import dev.inferd.engine.tensor.parallel.WorkerPool;

/**
 * Several matrices times one input (a layer's query, key and value; its gate and up projections) handed
 * out to the worker pool as one call: every matrix's row tasks in one {@link WorkerPool#parallelFor}, so
 * the calling thread and the workers meet once instead of once per matrix. A generated token runs some
 * 130 such calls, and the threads' waits at their ends were a tenth of a 1B Q4_0 decode's samples
 *. Each matrix's rows go through the same kernels as {@link WeightMatrix#multiply} alone,
 * so the results are the same bits.
 *
 * <p>Only batches that every matrix would give its row kernels take this path ({@link ProductPath#allRowKernels});
 * the others, prompts in a tiled product among them, multiply matrix by matrix. One per calling thread,
 * reused: a call allocates nothing.
 */
public final class SameInputProducts implements WorkerPool.Task {
    private static final ThreadLocal<SameInputProducts> PER_THREAD = ThreadLocal.withInitial(SameInputProducts::new);

    private MappedMatrix.Job[] jobs = new MappedMatrix.Job[0];
    /** Matrix i's tasks are {@code [starts[i], starts[i + 1])} of the call's. */
    private int[] starts = new int[1];
    private int count;

    public static void multiply(WeightMatrix[] matrices, float[] x, int batch, float[][] outs, int promptRows) {
        if (matrices.length != outs.length) throw new IllegalArgumentException(matrices.length + " matrices, " + outs.length + " outputs");
        if (!allTakeRowKernels(matrices, batch, promptRows)) {
            for (int i = 0; i < matrices.length; i++) matrices[i].multiply(x, batch, outs[i], promptRows);
            return;
        }
        PER_THREAD.get().run(matrices, x, batch, outs);
    }

    private static boolean allTakeRowKernels(WeightMatrix[] matrices, int batch, int promptRows) {
        for (WeightMatrix m : matrices) {
            if (!(m instanceof MappedMatrix mapped) || !ProductPath.allRowKernels(mapped, batch, promptRows)) return false;
        }
        return true;
    }

    private void run(WeightMatrix[] matrices, float[] x, int batch, float[][] outs) {
        // every matrix's arguments before any activations are prepared
        for (int i = 0; i < matrices.length; i++) ((MappedMatrix) matrices[i]).checkArguments(x, batch, outs[i], 0);
        ensureRoom(matrices.length);
        long work = 0;
        try {
            count = matrices.length;
            for (int i = 0; i < count; i++) {
                var matrix = (MappedMatrix) matrices[i];
                MappedMatrix.Job job = jobs[i];
                job.start(matrix, x, 0, batch, outs[i]);
                job.tasks = matrix.prepare(job);
                starts[i + 1] = starts[i] + job.tasks;
                work += (long) matrix.rows * matrix.cols * batch;
            }
            WorkerPool pool = WorkerPool.shared();
            int tasks = starts[count];
            if (pool.threads() == 1 || work < MappedMatrix.PARALLEL_MIN_WORK) {
                for (int t = 0; t < tasks; t++) run(t, 0);
            } else {
                pool.parallelFor(tasks, this);
            }
        } finally {
            for (int i = 0; i < count; i++) jobs[i].clear();
            count = 0;
        }
    }

    private void ensureRoom(int matrices) {
        if (jobs.length >= matrices) return;
        var more = new MappedMatrix.Job[matrices];
        System.arraycopy(jobs, 0, more, 0, jobs.length);
        for (int i = jobs.length; i < matrices; i++) more[i] = new MappedMatrix.Job();
        jobs = more;
        starts = new int[matrices + 1];
    }

    @Override
    public void run(int task, int worker) {
        int i = 0;
        while (task >= starts[i + 1]) i++;
        MappedMatrix.Job job = jobs[i];
        job.matrix.compute(job, task - starts[i]);
    }
}
