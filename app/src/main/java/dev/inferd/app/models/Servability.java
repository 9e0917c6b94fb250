package dev.inferd.app.models;

import dev.inferd.engine.model.Architecture;
import dev.inferd.engine.model.synthetic.WeightFormat;
import dev.inferd.engine.tokenizer.Tokenizer;

import java.util.Locale;

/**
 * Whether this build can serve a catalog model, from the catalog's facts alone (nothing is downloaded): its
 * architecture, its file's quantization (the tensor types of that llama-quantize file type), and its tokenizer
 * ({@code tokenizer} in the catalog: {@code llama} for SentencePiece, {@code gpt2/<pre>} for byte-level BPE with
 * the {@code tokenizer.ggml.pre} its GGUF names). Chat templates are the GGUF's own, rendered by the engine's Jinja
 * interpreter, so they are not a catalog fact. What a user's entry leaves out ({@code unknown}, no tokenizer) is not
 * held against it: the file's own metadata is checked when it loads.
 *
 * @param reason why not, or empty when servable
 */
public record Servability(boolean servable, String reason) {
    private static final Servability YES = new Servability(true, "");
    /** What {@link CatalogEntry} says for a fact the entry leaves out. */
    private static final String UNKNOWN = "unknown";

    public static Servability of(CatalogEntry entry) {
        if (entry.kind().equals("speech")) {
            // whisper.cpp's own format; the speech module's loader checks the file's tensor types when it loads
            return entry.architecture().equals("whisper") ? YES
                    : no("speech models of architecture " + entry.architecture() + " are not served by this build (only whisper)");
        }
        if (!entry.architecture().equals(UNKNOWN) && !Architecture.supports(entry.architecture())) {
            return no("architecture " + entry.architecture() + " is not supported (supported: " + Architecture.names() + ")");
        }
        if (!entry.quant().equals(UNKNOWN) && !quantizationSupported(entry.quant())) {
            return no("quantization " + entry.quant() + " is not supported (supported: "
                    + WeightFormat.KNOWN.stream().map(WeightFormat::name).toList() + ")");
        }
        String tokenizer = entry.tokenizer();
        if (tokenizer != null) {
            int slash = tokenizer.indexOf('/');
            String model = slash < 0 ? tokenizer : tokenizer.substring(0, slash);
            String pre = slash < 0 ? null : tokenizer.substring(slash + 1);
            if (!Tokenizer.supports(model, pre)) return no("tokenizer " + tokenizer + " is not supported");
        }
        return YES;
    }

    private static boolean quantizationSupported(String quant) {
        String q = quant.toUpperCase(Locale.ROOT);
        return WeightFormat.KNOWN.stream().anyMatch(f -> f.name().equals(q));
    }

    private static Servability no(String reason) {
        return new Servability(false, reason);
    }
}
