package dev.inferd.engine.gguf;

/**
 * One tensor's header entry. {@code dims[0]} is the fastest-varying (row length), as in ggml: a
 * weight matrix with {@code dims = [in, out]} has {@code out} rows of {@code in} elements.
 *
 * @param offset byte offset relative to the start of the tensor data section
 */
public record TensorInfo(String name, long[] dims, GGMLType type, long offset) {

    public long elementCount() {
        long n = 1;
        for (long d : dims) n *= d;
        return n;
    }

    public long byteSize() {
        return type.bytesFor(elementCount());
    }

    /** Row length ({@code dims[0]}). */
    public long cols() {
        return dims[0];
    }

    /** Number of rows: the product of all dims but the first. */
    public long rows() {
        return elementCount() / dims[0];
    }
}
