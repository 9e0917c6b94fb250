package dev.inferd.engine.model.synthetic;

import java.util.List;
import java.util.Locale;

/**
 * The shape and hyperparameters of a real model, for writing a synthetic file of exactly that size
 * (weights are random: the speed of a forward pass does not depend on their values).
 *
 * @param name          the shape's name on the command line, e.g. {@code smollm2-135m}
 * @param architecture  the GGUF architecture: {@code llama}, {@code qwen2}, {@code qwen3}, {@code gemma2}, {@code gemma3}
 *                      or {@code phi3}, each with the tensors and metadata its real files have
 * @param tiedOutput    no {@code output.weight}: the output head reads {@code token_embd.weight}
 * @param qkvBiases     q/k/v projections carry biases (Qwen2)
 * @param llama3Rope    Llama 3 frequency scaling, written as the {@code rope_freqs.weight} tensor; null for none
 * @param headDim       the width of a head, which Qwen3 and Gemma set apart from {@code embeddingLength / headCount}
 * @param slidingWindow Gemma's sliding window (0: none)
 */
public record SyntheticShape(String name, String architecture, int embeddingLength, int blockCount, int headCount,
                             int headCountKv, int feedForwardLength, int vocabSize, int contextLength,
                             float ropeFreqBase, float rmsNormEps, boolean tiedOutput, boolean qkvBiases,
                             Llama3Rope llama3Rope, int headDim, int slidingWindow) {

    /** The architectures a synthetic file can have (first: the shapes below are built with it). */
    private static final List<String> ARCHITECTURES = List.of("llama", "qwen2", "qwen3", "gemma2", "gemma3", "phi3");

    /** A shape whose head width is {@code embeddingLength / headCount}, without a sliding window. */
    public SyntheticShape(String name, String architecture, int embeddingLength, int blockCount, int headCount,
                          int headCountKv, int feedForwardLength, int vocabSize, int contextLength, float ropeFreqBase,
                          float rmsNormEps, boolean tiedOutput, boolean qkvBiases, Llama3Rope llama3Rope) {
        this(name, architecture, embeddingLength, blockCount, headCount, headCountKv, feedForwardLength, vocabSize,
                contextLength, ropeFreqBase, rmsNormEps, tiedOutput, qkvBiases, llama3Rope, embeddingLength / headCount, 0);
    }

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

    /**
     * Qwen/Qwen2.5-1.5B: the 0.5B's vocabulary at three times its bytes a token, a target for the 0.5B as a
     * draft (speculative decoding's cost with a draft of realistic size).
     */
    public static final SyntheticShape QWEN2_5_1_5B = new SyntheticShape("qwen2.5-1.5b", "qwen2",
            1536, 28, 12, 2, 8960, 151936, 32768, 1_000_000f, 1e-6f, true, true, null);

    /** meta-llama/Llama-3.2-1B. */
    public static final SyntheticShape LLAMA_3_2_1B = new SyntheticShape("llama-3.2-1b", "llama",
            2048, 16, 32, 8, 8192, 128256, 131072, 500_000f, 1e-5f, true, false,
            new Llama3Rope(32f, 1f, 4f, 8192));

    /** Qwen/Qwen3-0.6B. */
    public static final SyntheticShape QWEN3_0_6B = new SyntheticShape("qwen3-0.6b", "qwen3",
            1024, 28, 16, 8, 3072, 151936, 40960, 1_000_000f, 1e-6f, true, false, null, 128, 0);

    /** google/gemma-3-1b-it: five sliding-window layers (512 positions) to one global one. */
    public static final SyntheticShape GEMMA_3_1B = new SyntheticShape("gemma-3-1b", "gemma3",
            1152, 26, 4, 1, 6912, 262144, 32768, 1_000_000f, 1e-6f, true, false, null, 256, 512);

    /** google/gemma-2-2b-it: a sliding window of 4096 on every other layer. */
    public static final SyntheticShape GEMMA_2_2B = new SyntheticShape("gemma-2-2b", "gemma2",
            2304, 26, 8, 4, 9216, 256000, 8192, 10_000f, 1e-6f, true, false, null, 256, 4096);

    /** microsoft/Phi-3.5-mini-instruct: fused QKV and gate/up, LongRoPE over an original context of 4096. */
    public static final SyntheticShape PHI_3_5_MINI = new SyntheticShape("phi-3.5-mini", "phi3",
            3072, 32, 32, 32, 8192, 32064, 131072, 10_000f, 1e-5f, false, false, null, 96, 0);

    public static final List<SyntheticShape> KNOWN = List.of(SMOLLM2_135M, QWEN2_5_0_5B, QWEN2_5_1_5B, LLAMA_3_2_1B,
            QWEN3_0_6B, GEMMA_3_1B, GEMMA_2_2B, PHI_3_5_MINI);


    public SyntheticShape {
        if (!ARCHITECTURES.contains(architecture)) {
            throw new IllegalArgumentException("synthetic models are one of " + ARCHITECTURES + ", not " + architecture);
        }
        if (embeddingLength <= 0 || blockCount <= 0 || headCount <= 0 || headCountKv <= 0 || feedForwardLength <= 0
                || contextLength <= 0 || headDim <= 0 || slidingWindow < 0) {
            throw new IllegalArgumentException("shape " + name + " has a non-positive dimension");
        }
        if ((architecture.equals("llama") || architecture.equals("qwen2")) && headDim != embeddingLength / headCount) {
            throw new IllegalArgumentException(architecture + " heads are the width divided by the heads");
        }
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

    public int kvLength() { return headCountKv * headDim; }

    public int queryLength() { return headCount * headDim; }

    /** Number of weights (as llama.cpp counts them: every tensor's elements). */
    public long parameterCount() {
        return SyntheticModel.plan(this, WeightFormat.F32).stream().mapToLong(SyntheticModel.PlannedTensor::elements).sum();
    }
}
