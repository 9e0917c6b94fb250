package dev.inferd.engine.model.synthetic;

import java.util.List;
import java.util.Locale;

/**
 * The shape and hyperparameters of a real model, for writing a synthetic file of exactly that size
 * (weights are random: the speed of a forward pass does not depend on their values).
 *
 * @param name          the shape's name on the command line, e.g. {@code smollm2-135m}
 * @param architecture  the GGUF architecture ({@code llama} or {@code qwen2})
 * @param tiedOutput    no {@code output.weight}: the output head reads {@code token_embd.weight}
 * @param qkvBiases     q/k/v projections carry biases (Qwen2)
 * @param llama3Rope    Llama 3 frequency scaling, written as the {@code rope_freqs.weight} tensor; null for none
 */
public record SyntheticShape(String name, String architecture, int embeddingLength, int blockCount, int headCount,
                             int headCountKv, int feedForwardLength, int vocabSize, int contextLength,
                             float ropeFreqBase, float rmsNormEps, boolean tiedOutput, boolean qkvBiases,
                             Llama3Rope llama3Rope) {

    /**
     * Llama 3's RoPE scaling ({@code rope_scaling.rope_type = llama3} in the Hugging Face config): long
     * wavelengths are slowed by {@code factor}, short ones kept, the band between interpolated.
     */
    public record Llama3Rope(float factor, float lowFreqFactor, float highFreqFactor, int originalContextLength) {
        /** The divisor of each pair's frequency, as llama.cpp's converter stores it in {@code rope_freqs.weight}. */
        public float[] frequencyFactors(float base, int rotatedDims) {
            float[] factors = new float[rotatedDims / 2];
            double lowFreqWavelength = originalContextLength / lowFreqFactor;
            double highFreqWavelength = originalContextLength / highFreqFactor;
            for (int i = 0; i < factors.length; i++) {
                double frequency = Math.pow(base, -2.0 * i / rotatedDims);
                double wavelength = 2 * Math.PI / frequency;
                if (wavelength < highFreqWavelength) {
                    factors[i] = 1f;
                } else if (wavelength > lowFreqWavelength) {
                    factors[i] = factor;
                } else {
                    double smooth = (originalContextLength / wavelength - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
                    factors[i] = (float) (1 / ((1 - smooth) / factor + smooth));
                }
            }
            return factors;
        }
    }

    // The numbers are those of each model's Hugging Face config.json.

    /** HuggingFaceTB/SmolLM2-135M. */
    public static final SyntheticShape SMOLLM2_135M = new SyntheticShape("smollm2-135m", "llama",
            576, 30, 9, 3, 1536, 49152, 8192, 100_000f, 1e-5f, true, false, null);

    /** Qwen/Qwen2.5-0.5B. */
    public static final SyntheticShape QWEN2_5_0_5B = new SyntheticShape("qwen2.5-0.5b", "qwen2",
            896, 24, 14, 2, 4864, 151936, 32768, 1_000_000f, 1e-6f, true, true, null);

    /** meta-llama/Llama-3.2-1B. */
    public static final SyntheticShape LLAMA_3_2_1B = new SyntheticShape("llama-3.2-1b", "llama",
            2048, 16, 32, 8, 8192, 128256, 131072, 500_000f, 1e-5f, true, false,
            new Llama3Rope(32f, 1f, 4f, 8192));

    public static final List<SyntheticShape> KNOWN = List.of(SMOLLM2_135M, QWEN2_5_0_5B, LLAMA_3_2_1B);

    public SyntheticShape {
        if (!architecture.equals("llama") && !architecture.equals("qwen2")) {
            throw new IllegalArgumentException("synthetic models are llama or qwen2, not " + architecture);
        }
        if (embeddingLength <= 0 || blockCount <= 0 || headCount <= 0 || headCountKv <= 0 || feedForwardLength <= 0
                || contextLength <= 0) {
            throw new IllegalArgumentException("shape " + name + " has a non-positive dimension");
        }
        if (embeddingLength % headCount != 0) throw new IllegalArgumentException("heads must divide the width");
        if (headCount % headCountKv != 0) throw new IllegalArgumentException("KV heads must divide the heads");
        if (vocabSize < SyntheticVocabulary.MIN_SIZE) {
            throw new IllegalArgumentException("the synthetic vocabulary needs at least " + SyntheticVocabulary.MIN_SIZE
                    + " tokens, shape " + name + " has " + vocabSize);
        }
    }

    /** The shape called {@code name} (case-insensitive). */
    public static SyntheticShape named(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return KNOWN.stream().filter(s -> s.name.equals(n)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "unknown synthetic shape '" + name + "'; known: " + KNOWN.stream().map(SyntheticShape::name).toList()));
    }

    public int headDim() { return embeddingLength / headCount; }

    public int kvLength() { return headCountKv * headDim(); }

    /** Number of weights (as llama.cpp counts them: every tensor's elements). */
    public long parameterCount() {
        return SyntheticModel.plan(this, WeightFormat.F32).stream().mapToLong(SyntheticModel.PlannedTensor::elements).sum();
    }
}
