package dev.inferd.engine.tensor.copies;

import dev.inferd.engine.gguf.TensorInfo;

/** Which of a model's tensors get a copy, and how long each is: what a {@link CopyCacheFile} holds. */
public interface CopyLayout {

    /** Bytes of the copy {@code tensor} gets, or 0 where it gets none. */
    long copyBytes(TensorInfo tensor);

    /** The layout's variant on this machine (its rows per group): a cache written for another is rebuilt. */
    int variant();
}
