package dev.inferd.engine.generate;

import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.model.SyntheticModels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** A loaded model reports the end of its warm-up, which servers wait for before they announce it. */
class WarmUpEventTest {
    @TempDir
    Path dir;

    @Test
    void awaitingTheWarmUpReturnsOnceItIsOverAndReported() throws Exception {
        Path file = SyntheticModels.write(SyntheticModels.smallLlama(GGMLType.Q8_0), dir.resolve("llama.gguf"));
        List<ModelEvent> events = new CopyOnWriteArrayList<>();
        try (var g = LocalTextGenerator.open(file, new LocalTextGenerator.Options("warm", null, 0).withParallel(2), events::add)) {
            g.awaitWarmUp();
            assertThat(events).first().isInstanceOf(ModelEvent.Loaded.class);
            // the event comes on the scheduler thread as the warm-up completes, just before or after the wait returns
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (events.stream().noneMatch(ModelEvent.WarmedUp.class::isInstance) && System.nanoTime() < deadline) Thread.sleep(5);
            assertThat(events).filteredOn(ModelEvent.WarmedUp.class::isInstance).singleElement()
                    .satisfies(e -> {
                        assertThat(e.model()).isEqualTo("warm");
                        var w = (ModelEvent.WarmedUp) e;
                        assertThat(w.millis()).isGreaterThanOrEqualTo(w.kernelMillis()).isNotNegative();
                        assertThat(w.kernelRounds()).as("the kernels' rounds ran").isPositive();
                        assertThat(w.passes()).as("then the forward passes").isPositive();
                    });
            g.awaitWarmUp(); // over: returns at once
        }
    }
}
