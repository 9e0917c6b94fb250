package dev.inferd.engine.kvcache;

/**
 * Which layers attend over a sliding window of the last {@code window} positions (their own included), and
 * so which layers' keys and values a sequence can let go of once its positions fall behind every window.
 *
 * @param window  positions a windowed layer sees, 0 when no layer slides
 * @param layers  per layer, whether it slides
 */
public record SlidingWindows(int window, boolean[] layers) {

    public SlidingWindows {
        if (window < 0) throw new IllegalArgumentException("negative sliding window " + window);
        layers = layers.clone();
    }

    /** No layer slides. */
    public static SlidingWindows none(int layers) {
        return new SlidingWindows(0, new boolean[layers]);
    }

    /** Whether layer {@code layer} keeps only its window. */
    public boolean isWindowed(int layer) {
        return window > 0 && layers[layer];
    }

    /** How many layers keep only their window. */
    public int windowedCount() {
        int n = 0;
        for (int l = 0; l < layers.length; l++) if (isWindowed(l)) n++;
        return n;
    }

    /** The first position a windowed layer's query at {@code position} sees. */
    public int firstVisible(int position) {
        return Math.max(0, position - window + 1);
    }

    /**
     * Blocks a sequence holds at most in the windowed layers when it writes up to {@code maxWrite} positions
     * per forward pass and lets go of what falls behind the window between passes
     * ({@link KVCache#releaseOutsideWindows}): its window, the positions it writes, and a block at each end
     * that they only partly fill. Never more than the whole context.
     */
    public int blocksPerSequence(int blockSize, int contextLength, int maxWrite) {
        int context = Math.ceilDiv(contextLength, blockSize);
        if (windowedCount() == 0) return 0;
        return (int) Math.min(context, Math.ceilDiv((long) window + maxWrite, blockSize) + 1);
    }

    @Override
    public boolean[] layers() {
        return layers.clone();
    }
}
