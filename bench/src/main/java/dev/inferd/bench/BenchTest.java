package dev.inferd.bench;

/**
 * One test of {@code inferd bench}, named as {@code llama-bench} names them: {@code pp512} prefills
 * 512 prompt tokens, {@code tg128} generates 128 tokens one at a time, and {@code tg128 @ d4096} does so
 * after 4096 tokens already in the cache (its newer {@code -d}): attention then reads the cache's keys
 * and values for every token, which an empty cache never shows.
 */
public record BenchTest(Kind kind, int tokens, int depth) {

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
        if (depth < 0) throw new IllegalArgumentException("the depth must not be negative, got " + depth);
    }

    public static BenchTest prompt(int tokens) {
        return new BenchTest(Kind.PROMPT, tokens, 0);
    }

    public static BenchTest generation(int tokens) {
        return new BenchTest(Kind.GENERATION, tokens, 0);
    }

    /** The same test after {@code depth} tokens already in the cache. */
    public BenchTest atDepth(int depth) {
        return new BenchTest(kind, tokens, depth);
    }

    /** Positions the test's cache must hold. */
    public int positions() {
        return depth + tokens;
    }

    /** {@code pp512}, {@code tg128}, {@code tg128 @ d4096}. */
    public String name() {
        return kind.prefix + tokens + (depth > 0 ? " @ d" + depth : "");
    }
}
