package dev.inferd.engine.model;

import dev.inferd.engine.tensor.format.WeightMatrices;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.TensorInfo;
import dev.inferd.engine.tensor.copies.CopyStore;
import dev.inferd.engine.tensor.WeightMatrix;

/**
 * Finds a model's tensors by their GGUF names and checks their shapes against the config. A matrix
 * that gets a copy for generated tokens (from {@code copies}) is read from the copy only, so its pages
 * of the mapped file are let go once the copy exists.
 */
final class WeightLoader {
    private final GGUFFile gguf;
    private final CopyStore copies;

    WeightLoader(GGUFFile gguf, CopyStore copies) {
        this.gguf = gguf;
        this.copies = copies;
    }

    boolean has(String name) {
        return gguf.tensors().containsKey(name);
    }

    /** A {@code rows x cols} matrix (ggml dims {@code [cols, rows]}). */
    WeightMatrix matrix(String name, int rows, int cols) {
        TensorInfo info = require(name);
        if (info.dims().length > 2 || info.cols() != cols || info.rows() != rows) {
            throw new UnsupportedModelException("tensor " + name + " has shape " + shape(info) + ", expected ["
                    + cols + ", " + rows + "]");
        }
        WeightMatrix matrix = WeightMatrices.of(info, gguf.tensorData(info), copies);
        if (WeightMatrices.copyBytes(info) > 0) gguf.release(info);
        return matrix;
    }

    /**
     * Rows {@code from .. from + rows - 1} of the {@code totalRows x cols} matrix {@code name}, as a matrix of its own:
     * Phi-3's fused {@code attn_qkv} and {@code ffn_up} (gate, then up) are read as separate matrices, so its forward
     * pass is the others'. A row is whole blocks of its type, so the rows are a contiguous slice of the tensor.
     */
    WeightMatrix rows(String name, int totalRows, int cols, int from, int rows) {
        TensorInfo info = require(name);
        if (info.dims().length > 2 || info.cols() != cols || info.rows() != totalRows) {
            throw new UnsupportedModelException("tensor " + name + " has shape " + shape(info) + ", expected ["
                    + cols + ", " + totalRows + "]");
        }
        long rowBytes = info.type().bytesFor(cols);
        var part = new TensorInfo(name + "[" + from + ".." + (from + rows) + ")", new long[] {cols, rows}, info.type(),
                info.offset() + from * rowBytes);
        WeightMatrix matrix = WeightMatrices.of(part, gguf.tensorData(part), copies);
        if (WeightMatrices.copyBytes(part) > 0) {
            // the parts are taken in order: once the last has its copy, no part reads the stored tensor
            gguf.release(from + rows == totalRows ? info : part);
        }
        return matrix;
    }

    /** A vector of {@code length} elements, as floats (norms, biases, rope factors: small). */
    float[] vector(String name, int length) {
        TensorInfo info = require(name);
        if (info.elementCount() != length) {
            throw new UnsupportedModelException("tensor " + name + " has shape " + shape(info) + ", expected ["
                    + length + "]");
        }
        return WeightMatrices.of(info, gguf.tensorData(info), CopyStore.inMemory()).toFloatArray();
    }

    float[] optionalVector(String name, int length) {
        return has(name) ? vector(name, length) : null;
    }

    private TensorInfo require(String name) {
        TensorInfo info = gguf.tensors().get(name);
        if (info == null) throw new UnsupportedModelException(gguf.path().getFileName() + " has no tensor " + name);
        return info;
    }

    private static String shape(TensorInfo info) {
        return java.util.Arrays.toString(info.dims());
    }
}
