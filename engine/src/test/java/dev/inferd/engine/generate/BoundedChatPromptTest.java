package dev.inferd.engine.generate;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.chat.RenderedPrompt;
import dev.inferd.engine.tokenizer.TooManyTokensException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A prompt rendered with tools is tokenized against the context's limit, as plain conversations are. */
class BoundedChatPromptTest {
    private static LocalTextGenerator generator;

    @BeforeAll
    static void open() throws Exception {
        generator = LocalTextGenerator.open(Fixtures.storiesModel(), LocalTextGenerator.Options.DEFAULTS);
    }

    @AfterAll
    static void close() {
        if (generator != null) generator.close();
    }

    @Test
    void aRenderedPromptWithinTheLimitGetsTheSameTokens() {
        var prompt = new RenderedPrompt("Once upon a time, there was a little girl named Lily.", false);
        int[] whole = generator.chatPrompt(prompt);
        assertThat(generator.chatPrompt(prompt, whole.length)).containsExactly(whole);
    }

    @Test
    void aHugeRenderedPromptIsRefusedWithoutTokenizingItAll() {
        var prompt = new RenderedPrompt("Once upon a time. ".repeat(8 * 1024 * 1024 / 18), false);
        assertThatThrownBy(() -> generator.chatPrompt(prompt, 4096))
                .isInstanceOfSatisfying(TooManyTokensException.class, e -> assertThat(e.atLeast()).isGreaterThan(4096));
    }
}
