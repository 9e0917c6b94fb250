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
