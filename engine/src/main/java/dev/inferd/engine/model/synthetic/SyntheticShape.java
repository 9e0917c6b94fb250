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

    // The other shapes of the model catalog. Where a model ties its output head to the token embedding
    // but the published GGUF files carry an output.weight of their own (Qwen2.5 1.5B and 3B, Qwen3 1.7B),
    // the shape is untied like those files: a token reads the same bytes either way, and the file's size
    // is the published one.

    /** Qwen/Qwen2.5-1.5B (also Qwen2.5-Coder-1.5B and DeepSeek-R1-Distill-Qwen-1.5B). */
    public static final SyntheticShape QWEN2_5_1_5B = new SyntheticShape("qwen2.5-1.5b", "qwen2",
            1536, 28, 12, 2, 8960, 151936, 32768, 1_000_000f, 1e-6f, false, true, null);

    /** Qwen/Qwen2.5-3B. */
    public static final SyntheticShape QWEN2_5_3B = new SyntheticShape("qwen2.5-3b", "qwen2",
            2048, 36, 16, 2, 11008, 151936, 32768, 1_000_000f, 1e-6f, false, true, null);

    /** Qwen/Qwen2.5-7B (also Qwen2.5-Coder-7B and DeepSeek-R1-Distill-Qwen-7B). */
    public static final SyntheticShape QWEN2_5_7B = new SyntheticShape("qwen2.5-7b", "qwen2",
            3584, 28, 28, 4, 18944, 152064, 32768, 1_000_000f, 1e-6f, false, true, null);

    /** Qwen/Qwen2.5-14B. */
    public static final SyntheticShape QWEN2_5_14B = new SyntheticShape("qwen2.5-14b", "qwen2",
            5120, 48, 40, 8, 13824, 152064, 32768, 1_000_000f, 1e-6f, false, true, null);

    /** Qwen/Qwen2.5-32B. */
    public static final SyntheticShape QWEN2_5_32B = new SyntheticShape("qwen2.5-32b", "qwen2",
            5120, 64, 40, 8, 27648, 152064, 32768, 1_000_000f, 1e-6f, false, true, null);

    /** meta-llama/Llama-3.2-3B. */
    public static final SyntheticShape LLAMA_3_2_3B = new SyntheticShape("llama-3.2-3b", "llama",
            3072, 28, 24, 8, 8192, 128256, 131072, 500_000f, 1e-5f, true, false,
            new Llama3Rope(32f, 1f, 4f, 8192));

    /** meta-llama/Llama-3.1-8B (also DeepSeek-R1-Distill-Llama-8B and Hermes-3-Llama-3.1-8B). */
    public static final SyntheticShape LLAMA_3_1_8B = new SyntheticShape("llama-3.1-8b", "llama",
            4096, 32, 32, 8, 14336, 128256, 131072, 500_000f, 1e-5f, false, false,
            new Llama3Rope(8f, 1f, 4f, 8192));

    /** meta-llama/Llama-3.3-70B-Instruct. */
    public static final SyntheticShape LLAMA_3_3_70B = new SyntheticShape("llama-3.3-70b", "llama",
            8192, 80, 64, 8, 28672, 128256, 131072, 500_000f, 1e-5f, false, false,
            new Llama3Rope(8f, 1f, 4f, 8192));

    /** Qwen/Qwen3-1.7B. */
    public static final SyntheticShape QWEN3_1_7B = new SyntheticShape("qwen3-1.7b", "qwen3",
            2048, 28, 16, 8, 6144, 151936, 40960, 1_000_000f, 1e-6f, false, false, null, 128, 0);

    /** Qwen/Qwen3-4B. */
    public static final SyntheticShape QWEN3_4B = new SyntheticShape("qwen3-4b", "qwen3",
            2560, 36, 32, 8, 9728, 151936, 40960, 1_000_000f, 1e-6f, true, false, null, 128, 0);

    /** Qwen/Qwen3-8B. */
    public static final SyntheticShape QWEN3_8B = new SyntheticShape("qwen3-8b", "qwen3",
            4096, 36, 32, 8, 12288, 151936, 40960, 1_000_000f, 1e-6f, false, false, null, 128, 0);

    /** Qwen/Qwen3-14B. */
    public static final SyntheticShape QWEN3_14B = new SyntheticShape("qwen3-14b", "qwen3",
            5120, 40, 40, 8, 17408, 151936, 40960, 1_000_000f, 1e-6f, false, false, null, 128, 0);

    /** Qwen/Qwen3-32B. */
    public static final SyntheticShape QWEN3_32B = new SyntheticShape("qwen3-32b", "qwen3",
            5120, 64, 64, 8, 25600, 151936, 40960, 1_000_000f, 1e-6f, false, false, null, 128, 0);

    /** HuggingFaceTB/SmolLM2-360M. */
    public static final SyntheticShape SMOLLM2_360M = new SyntheticShape("smollm2-360m", "llama",
            960, 32, 15, 5, 2560, 49152, 8192, 100_000f, 1e-5f, true, false, null);

    /** HuggingFaceTB/SmolLM2-1.7B. */
    public static final SyntheticShape SMOLLM2_1_7B = new SyntheticShape("smollm2-1.7b", "llama",
            2048, 24, 32, 32, 8192, 49152, 8192, 130_000f, 1e-5f, true, false, null);

    /** google/gemma-2-9b-it. */
    public static final SyntheticShape GEMMA_2_9B = new SyntheticShape("gemma-2-9b", "gemma2",
            3584, 42, 16, 8, 14336, 256000, 8192, 10_000f, 1e-6f, true, false, null, 256, 4096);

    /** google/gemma-3-4b-it's text model: a sliding window of 1024. */
    public static final SyntheticShape GEMMA_3_4B = new SyntheticShape("gemma-3-4b", "gemma3",
            2560, 34, 8, 4, 10240, 262208, 131072, 1_000_000f, 1e-6f, true, false, null, 256, 1024);

    /** google/gemma-3-12b-it's text model. */
    public static final SyntheticShape GEMMA_3_12B = new SyntheticShape("gemma-3-12b", "gemma3",
            3840, 48, 16, 8, 15360, 262208, 131072, 1_000_000f, 1e-6f, true, false, null, 256, 1024);

    /**
     * microsoft/Phi-4-mini-instruct: tied, grouped KV heads. Its RoPE turns 96 of a head's 128 dimensions;
     * the synthetic file turns all of them, which changes no matrix.
     */
    public static final SyntheticShape PHI_4_MINI = new SyntheticShape("phi-4-mini", "phi3",
            3072, 32, 24, 8, 8192, 200064, 131072, 10_000f, 1e-5f, true, false, null, 128, 0);

    /** mistralai/Mistral-7B-Instruct-v0.3. */
    public static final SyntheticShape MISTRAL_7B = new SyntheticShape("mistral-7b", "llama",
            4096, 32, 32, 8, 14336, 32768, 32768, 1_000_000f, 1e-5f, false, false, null);

    /** mistralai/Mistral-Nemo-Instruct-2407: heads of 128 in a width of 5120 (attention.key_length). */
    public static final SyntheticShape MISTRAL_NEMO_12B = new SyntheticShape("mistral-nemo-12b", "llama",
            5120, 40, 32, 8, 14336, 131072, 1_024_000, 1_000_000f, 1e-5f, false, false, null, 128, 0);

    /** TinyLlama/TinyLlama-1.1B-Chat-v1.0. */
    public static final SyntheticShape TINYLLAMA_1_1B = new SyntheticShape("tinyllama-1.1b", "llama",
            2048, 22, 32, 4, 5632, 32000, 2048, 10_000f, 1e-5f, false, false, null);

    /** karpathy/tinyllamas stories15M (a test model: it fits in the CPU's caches). */
    public static final SyntheticShape STORIES_15M = new SyntheticShape("stories-15m", "llama",
            288, 6, 6, 6, 768, 32000, 256, 10_000f, 1e-5f, false, false, null);

    public static final List<SyntheticShape> KNOWN = List.of(SMOLLM2_135M, QWEN2_5_0_5B, LLAMA_3_2_1B,
            QWEN3_0_6B, GEMMA_3_1B, GEMMA_2_2B, PHI_3_5_MINI,
            QWEN2_5_1_5B, QWEN2_5_3B, QWEN2_5_7B, QWEN2_5_14B, QWEN2_5_32B, LLAMA_3_2_3B, LLAMA_3_1_8B, LLAMA_3_3_70B,
            QWEN3_1_7B, QWEN3_4B, QWEN3_8B, QWEN3_14B, QWEN3_32B, SMOLLM2_360M, SMOLLM2_1_7B, GEMMA_2_9B,
            GEMMA_3_4B, GEMMA_3_12B, PHI_4_MINI, MISTRAL_7B, MISTRAL_NEMO_12B, TINYLLAMA_1_1B, STORIES_15M);


    public SyntheticShape {
        if (!ARCHITECTURES.contains(architecture)) {
            throw new IllegalArgumentException("synthetic models are one of " + ARCHITECTURES + ", not " + architecture);
        }
        if (embeddingLength <= 0 || blockCount <= 0 || headCount <= 0 || headCountKv <= 0 || feedForwardLength <= 0
                || contextLength <= 0 || headDim <= 0 || slidingWindow < 0) {
            throw new IllegalArgumentException("shape " + name + " has a non-positive dimension");
        }
        if (architecture.equals("qwen2") && headDim != embeddingLength / headCount) {
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
