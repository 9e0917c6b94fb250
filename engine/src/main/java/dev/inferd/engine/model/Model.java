package dev.inferd.engine.model;

import dev.inferd.engine.kvcache.KVCache;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.tensor.copies.CopyStore;
import dev.inferd.engine.tensor.WeightMatrix;

import java.util.List;

/**
 * A decoder that turns a {@link Batch} of tokens into next-token logits, reading and extending a
 * {@link KVCache}. The weights are views over the mapped GGUF file, which must stay open while the
 * model is used. {@link #forward} reuses internal buffers: one caller at a time.
 */
public interface Model {

    /** Loads the architecture the file names; batches of up to {@code maxBatch} entries; copies of the weights in memory. */
    static Model load(GGUFFile gguf, int maxBatch) {
        return load(gguf, maxBatch, CopyStore.inMemory());
    }

    /** {@link #load(GGUFFile, int)} with the weights' copies for generated tokens from {@code copies}. */
    static Model load(GGUFFile gguf, int maxBatch, CopyStore copies) {
        ModelConfig config = ModelConfig.fromGGUF(gguf);
        return switch (config.architecture()) {
            case LLAMA, QWEN2, QWEN3, GEMMA2, GEMMA3, PHI3 -> new TransformerModel(gguf, config, maxBatch, copies);
        };
    }

    ModelConfig config();

    /** The most entries one {@link #forward} call accepts. */
    int maxBatch();

    /** An empty cache shaped for this model, with room for every sequence's whole context in every layer. */
    default KVCache newKVCache(int maxSequences, int contextLength) {
        return newKVCache(maxSequences, contextLength, KVCache.DEFAULT_BLOCK_SIZE,
                maxSequences * Math.ceilDiv(Math.max(contextLength, 1), KVCache.DEFAULT_BLOCK_SIZE));
    }

    /** An empty cache of {@code blocks} blocks of {@code blockSize} positions, every sequence's whole context in every layer. */
    default KVCache newKVCache(int maxSequences, int contextLength, int blockSize, int blocks) {
        return newKVCache(maxSequences, contextLength, blockSize, blocks, contextLength, maxSequences);
    }

    /**
     * An empty cache of {@code blocks} blocks of {@code blockSize} positions for the layers that see the whole context;
     * its sliding-window layers keep blocks for the windows of {@code windowedSequences} sequences that write at most
     * {@code maxWrite} positions between calls to {@link KVCache#releaseOutsideWindows}.
     */
    default KVCache newKVCache(int maxSequences, int contextLength, int blockSize, int blocks, int maxWrite, int windowedSequences) {
        var windows = config().slidingWindows();
        return new KVCache(config().blockCount(), config().headCountKv(), config().headDim(), maxSequences, contextLength,
                blockSize, blocks, windows, windowedSequences * windows.blocksPerSequence(blockSize, contextLength, maxWrite));
    }

    /**
     * For each weight type among the matrices a forward pass multiplies by, the smallest such matrix: what
     * {@code WarmUp} runs the product kernels on, alone, before any forward pass.
     */
    List<WeightMatrix> smallestMatrixOfEachType();

    /**
     * Runs the batch: writes every entry's keys and values into the cache at (sequence, position) and
     * returns the logits of the entries that want them. Positions before an entry's own in its sequence
     * must already be in the cache or earlier in this batch.
     */
    Logits forward(Batch batch, KVCache cache);
}
