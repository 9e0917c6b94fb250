package dev.inferd.engine.tokenizer;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGUFFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tokenizing against a limit: the same tokens below it, a refusal above it without tokenizing the whole text. */
class BoundedEncodeTest {
    private static GGUFFile gguf;
    private static Tokenizer tokenizer;

    @BeforeAll
    static void load() throws Exception {
        gguf = GGUFFile.open(Fixtures.storiesModel());
        tokenizer = Tokenizer.fromGGUF(gguf);
    }

    @AfterAll
    static void close() {
        if (gguf != null) gguf.close();
    }

    @Test
    void aTextWithinTheLimitGetsTheSameTokens() {
        String text = "Once upon a time, there was a little girl named Lily.";
        int[] whole = tokenizer.encode(text, true, true);
        assertThat(tokenizer.encode(text, true, true, whole.length)).containsExactly(whole);
    }

    @Test
    void aTextOneTokenOverTheLimitIsRefusedWithItsCount() {
        String text = "Once upon a time, there was a little girl named Lily.";
        int count = tokenizer.encode(text, true, true).length;
        assertThatThrownBy(() -> tokenizer.encode(text, true, true, count - 1))
                .isInstanceOfSatisfying(TooManyTokensException.class, e -> assertThat(e.atLeast()).isEqualTo(count));
    }

    @Test
    void aHugeTextIsRefusedOnItsLengthAlone() {
        // 8 MB of text against a limit of 4096 tokens: refused with a lower bound far above the limit.
        String huge = "Once upon a time. ".repeat(8 * 1024 * 1024 / 18);
        assertThatThrownBy(() -> tokenizer.encode(huge, true, true, 4096))
                .isInstanceOfSatisfying(TooManyTokensException.class, e -> assertThat(e.atLeast()).isGreaterThan(4096));
    }
}
