package dev.inferd.bench;

/**
 * One test of {@code inferd bench}, named as {@code llama-bench} names them: {@code pp512} prefills
 * 512 prompt tokens, {@code tg128} generates 128 tokens one at a time.
 */
public record BenchTest(Kind kind, int tokens) {

    public enum Kind {
        /** Prompt processing: the tokens go through in batches, logits only for the last. */
        PROMPT("pp"),
        /** Text generation: one token per forward pass, each fed back. */
        GENERATION("tg");

        private final String prefix;

        Kind(String prefix) {
            this.prefix = prefix;
        }
    }

    public BenchTest {
        if (tokens <= 0) throw new IllegalArgumentException(kind.prefix + " needs a positive token count, got " + tokens);
    }

    public static BenchTest prompt(int tokens) {
        return new BenchTest(Kind.PROMPT, tokens);
    }

    public static BenchTest generation(int tokens) {
        return new BenchTest(Kind.GENERATION, tokens);
    }

    /** {@code pp512}, {@code tg128}. */
    public String name() {
        return kind.prefix + tokens;
    }
}
