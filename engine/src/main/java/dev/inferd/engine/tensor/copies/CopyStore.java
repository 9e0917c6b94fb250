package dev.inferd.engine.tensor.copies;

import java.lang.foreign.MemorySegment;

/**
 * Where the copies of a model's weights that generated tokens read ({@link InterleavedRows}) live:
 * fresh native memory, filled at every load ({@link #inMemory}), or a cache file that an earlier load
 * wrote and this one maps, then moves into memory of its own ({@link CopyCacheFile}), so that a model
 * already seen starts without building its copies again.
 */
public sealed interface CopyStore permits CopyStore.InMemory, CopyCacheFile {

    /** Memory for the copy of tensor {@code tensor}, {@code bytes} long, and whether it holds the copy already. */
    Slot slot(String tensor, long bytes);

    /** A copy's memory; when {@code filled}, it already holds the copy and must not be written. */
    record Slot(MemorySegment memory, boolean filled) {
    }

    /** Copies in native memory of their own, built at every load and freed with their matrices. */
    static CopyStore inMemory() {
        return InMemory.INSTANCE;
    }

    /** {@link #inMemory()}: each copy in native memory of its own ({@link FreshMemory}), freed once its matrix is unreachable. */
    final class InMemory implements CopyStore {
        private static final InMemory INSTANCE = new InMemory();

        private InMemory() {
        }

        @Override
        public Slot slot(String tensor, long bytes) {
            return new Slot(FreshMemory.allocate(bytes), false);
        }
    }
}
