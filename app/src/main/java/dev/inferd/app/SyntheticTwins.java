package dev.inferd.app;

import dev.inferd.app.models.CatalogEntry;
import dev.inferd.engine.model.synthetic.SyntheticModel;
import dev.inferd.engine.model.synthetic.SyntheticShape;
import dev.inferd.engine.model.synthetic.WeightFormat;

import java.util.Map;
import java.util.Optional;

import static java.util.Map.entry;

/**
 * The synthetic file that stands for a catalog model in speed measurements: the model's shape
 * ({@link SyntheticShape}) in the catalog file's quantization. Fine-tunes and distillations share
 * their base model's shape.
 */
final class SyntheticTwins {
    /** Catalog slug to shape name. A slug missing here has no twin; {@link #whyNone} says why. */
    private static final Map<String, String> SHAPES = Map.ofEntries(
            entry("llama-3.2-1b-instruct", "llama-3.2-1b"),
            entry("llama-3.2-1b", "llama-3.2-1b"),
            entry("llama-3.2-3b-instruct", "llama-3.2-3b"),
            entry("llama-3.1-8b-instruct", "llama-3.1-8b"),
            entry("deepseek-r1-distill-llama-8b", "llama-3.1-8b"),
            entry("hermes-3-llama-3.1-8b", "llama-3.1-8b"),
            entry("llama-3.3-70b-instruct", "llama-3.3-70b"),
            entry("qwen2.5-0.5b-instruct", "qwen2.5-0.5b"),
            entry("qwen2.5-0.5b", "qwen2.5-0.5b"),
            entry("qwen2.5-1.5b-instruct", "qwen2.5-1.5b"),
            entry("qwen2.5-1.5b", "qwen2.5-1.5b"),
            entry("qwen2.5-coder-1.5b-instruct", "qwen2.5-1.5b"),
            entry("deepseek-r1-distill-qwen-1.5b", "qwen2.5-1.5b"),
            entry("qwen2.5-3b-instruct", "qwen2.5-3b"),
            entry("qwen2.5-7b-instruct", "qwen2.5-7b"),
            entry("qwen2.5-coder-7b-instruct", "qwen2.5-7b"),
            entry("deepseek-r1-distill-qwen-7b", "qwen2.5-7b"),
            entry("qwen2.5-14b-instruct", "qwen2.5-14b"),
            entry("qwen2.5-32b-instruct", "qwen2.5-32b"),
            entry("qwen3-0.6b", "qwen3-0.6b"),
            entry("qwen3-1.7b", "qwen3-1.7b"),
            entry("qwen3-4b", "qwen3-4b"),
            entry("qwen3-8b", "qwen3-8b"),
            entry("qwen3-14b", "qwen3-14b"),
            entry("qwen3-32b", "qwen3-32b"),
            entry("smollm2-135m-instruct", "smollm2-135m"),
            entry("smollm2-135m", "smollm2-135m"),
            entry("smollm2-360m-instruct", "smollm2-360m"),
            entry("smollm2-1.7b-instruct", "smollm2-1.7b"),
            entry("gemma-2-2b-it", "gemma-2-2b"),
            entry("gemma-2-9b-it", "gemma-2-9b"),
            entry("gemma-3-1b-it", "gemma-3-1b"),
            entry("gemma-3-4b-it", "gemma-3-4b"),
            entry("gemma-3-12b-it", "gemma-3-12b"),
            entry("phi-3.5-mini-instruct", "phi-3.5-mini"),
            entry("phi-4-mini-instruct", "phi-4-mini"),
            entry("mistral-7b-instruct-v0.3", "mistral-7b"),
            entry("mistral-nemo-instruct-2407", "mistral-nemo-12b"),
            entry("tinyllama-1.1b-chat-v1.0", "tinyllama-1.1b"),
            entry("stories-15m", "stories-15m"));

    private SyntheticTwins() {
    }

    /** The synthetic twin of {@code entry}, or empty when it has none ({@link #whyNone}). */
    static Optional<SyntheticModel.Spec> of(CatalogEntry entry) {
        String shape = SHAPES.get(entry.slug());
        if (shape == null || !isTextModel(entry) || !writable(entry.quant())) return Optional.empty();
        return Optional.of(new SyntheticModel.Spec(SyntheticShape.named(shape), WeightFormat.named(entry.quant()),
                SyntheticModel.Spec.DEFAULT_SEED));
    }

    private static boolean writable(String quant) {
        return WeightFormat.KNOWN.stream().anyMatch(f -> f.name().equalsIgnoreCase(quant));
    }

    /** Why {@code entry} has no twin (only meaningful when {@link #of} is empty). */
    static String whyNone(CatalogEntry entry) {
        if (!isTextModel(entry)) return "a " + entry.kind() + " model (" + entry.architecture() + "), not a text decoder";
        if (entry.slug().equals("stories-260k")) {
            return "its 512-token vocabulary is below the synthetic writer's; a 1 MB test model with no bandwidth limit";
        }
        if (!SHAPES.containsKey(entry.slug())) return "no synthetic shape is known for it";
        return "the synthetic writer has no type " + entry.quant();
    }

    private static boolean isTextModel(CatalogEntry entry) {
        return !entry.kind().equals("speech") && !entry.architecture().equals("whisper");
    }
}
