package dev.inferd.engine.generate;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GenerationTest {

    @Test
    void theReaderGetsTheEventsInOrderAndTheEndWithTheResult() throws Exception {
        var g = new Generation();
        g.text(0, "Hello", List.of());
        g.finish(0, FinishReason.STOP);
        g.end(new GenerationResult(3, 1));

        assertThat(g.next()).isEqualTo(new GenerationEvent.Text(0, "Hello", List.of()));
        assertThat(g.next()).isEqualTo(new GenerationEvent.Finish(0, FinishReason.STOP));
        assertThat(g.next()).isEqualTo(new GenerationEvent.End(new GenerationResult(3, 1)));
        assertThat(g.result()).isCompletedWithValue(new GenerationResult(3, 1));
        assertThat(g.next(1, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void anEngineFailureIsThrownToTheReaderAfterTheEventsBeforeIt() throws Exception {
        var g = new Generation();
        g.text(0, "a", List.of());
        g.fail(new IllegalStateException("broken"));

        assertThat(g.next()).isInstanceOf(GenerationEvent.Text.class);
        assertThatThrownBy(g::next).isInstanceOf(IllegalStateException.class).hasMessage("broken");
        assertThat(g.result()).isCompletedExceptionally();
    }

    @Test
    void cancelAndAwaitReturnsOnceTheEngineEndedTheGeneration() throws Exception {
        var g = new Generation();
        var engine = Thread.ofVirtual().start(() -> {
            while (!g.isCancelled()) Thread.onSpinWait();
            g.end(new GenerationResult(3, 0));
        });
        g.cancelAndAwait();

        assertThat(g.isCancelled()).isTrue();
        assertThat(g.result()).isCompletedWithValue(new GenerationResult(3, 0));
        engine.join();
    }
}
