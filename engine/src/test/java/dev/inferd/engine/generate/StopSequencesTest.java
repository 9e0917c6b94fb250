package dev.inferd.engine.generate;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class StopSequencesTest {

    @Test
    void theEarliestCompleteStopSequenceWins() {
        var stops = new StopSequences(List.of("END", "ab"));
        assertThat(stops.firstMatch(new StringBuilder("xxabyyEND"))).isEqualTo(new StopSequences.Match(2, "ab"));
        assertThat(stops.firstMatch(new StringBuilder("xxEN"))).isNull();
    }

    @Test
    void aTailThatCouldStillBecomeAStopSequenceIsHeldBack() {
        var stops = new StopSequences(List.of("END", "\n\n"));
        assertThat(stops.heldBack("the EN")).isEqualTo(2);
        assertThat(stops.heldBack("line\n")).isEqualTo(1);
        assertThat(stops.heldBack("the E")).isEqualTo(1);
        assertThat(stops.heldBack("the")).isZero();
    }

    @Test
    void noStopSequencesHoldNothing() {
        var none = new StopSequences(List.of());
        assertThat(none.isEmpty()).isTrue();
        assertThat(none.heldBack("anything")).isZero();
        assertThat(none.firstMatch(new StringBuilder("anything"))).isNull();
    }
}
