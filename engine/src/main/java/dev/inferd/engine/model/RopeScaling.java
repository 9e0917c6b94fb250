package dev.inferd.engine.model;

/**
 * Context-extension scaling of the RoPE frequencies ({@code <arch>.rope.scaling.*}). Llama 3's
 * per-frequency factors are not here: they come as the {@code rope_freqs.weight} tensor.
 *
 * @param factor the context extension factor; positions are multiplied by {@code 1 / factor} (linear)
 */
public record RopeScaling(Type type, float factor) {

    public enum Type { NONE, LINEAR }

    public static final RopeScaling NONE = new RopeScaling(Type.NONE, 1f);

    public RopeScaling {
        if (!(factor > 0)) throw new UnsupportedModelException("rope.scaling.factor must be positive, was " + factor);
    }

    /** The multiplier applied to every rotation angle. */
    public float frequencyScale() {
        return type == Type.LINEAR ? 1f / factor : 1f;
    }

    static RopeScaling fromGGUF(ModelConfig.Keys keys) {
        String type = keys.optionalString("rope.scaling.type");
        float factor = keys.optionalFloat("rope.scaling.factor", 0f);
        if (factor == 0f) factor = keys.optionalFloat("rope.scale_linear", 0f); // older converters
        if (type == null) type = factor > 0f && factor != 1f ? "linear" : "none";
        return switch (type) {
            case "none" -> NONE;
            case "linear" -> factor > 0f && factor != 1f ? new RopeScaling(Type.LINEAR, factor) : NONE;
            default -> throw new UnsupportedModelException(
                    keys.name("rope.scaling.type") + " '" + type + "' is not supported (none and linear are)");
        };
    }
}
