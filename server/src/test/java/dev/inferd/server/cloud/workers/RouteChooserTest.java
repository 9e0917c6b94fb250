package dev.inferd.server.cloud.workers;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class RouteChooserTest {

    private static Candidate worker(String id, Set<String> models, long free, int outstanding, double kv) {
        return new Candidate(id, models, free, outstanding, kv);
    }

    @Test
    void aWorkerThatHasTheModelBeatsOneWithMoreRoom() {
        var live = List.of(worker("a", Set.of(), 10_000, 0, 0), worker("b", Set.of("m"), 10, 3, 0.5));
        assertThat(RouteChooser.choose("m", null, live, null)).contains(new RouteChooser.Choice("b", false));
    }

    @Test
    void leastOutstandingThenLeastKvUse() {
        var live = List.of(worker("a", Set.of("m"), 0, 2, 0.1), worker("b", Set.of("m"), 0, 1, 0.9),
                worker("c", Set.of("m"), 0, 1, 0.3));
        assertThat(RouteChooser.choose("m", null, live, null).orElseThrow().worker()).isEqualTo("c");
    }

    @Test
    void aModelNoWorkerHasIsLoadedByTheWorkerWithTheMostFreeBudget() {
        var live = List.of(worker("a", Set.of("x"), 4_000, 0, 0), worker("b", Set.of("y"), 9_000, 5, 0));
        assertThat(RouteChooser.choose("m", null, live, null)).contains(new RouteChooser.Choice("b", true));
    }

    @Test
    void aModelBeingLoadedGoesToTheWorkerLoadingIt() {
        var live = List.of(worker("a", Set.of(), 4_000, 0, 0), worker("b", Set.of(), 9_000, 0, 0));
        assertThat(RouteChooser.choose("m", null, live, "a")).contains(new RouteChooser.Choice("a", true));
        // the worker loading it died: the next one with the most room loads it
        assertThat(RouteChooser.choose("m", null, List.of(live.get(1)), "a")).contains(new RouteChooser.Choice("b", true));
    }

    @Test
    void aWorkerThatReportsLoadingTheModelBeatsTheClaimAndTheRoomiest() {
        var live = List.of(new Candidate("a", Set.of(), Set.of("m"), 1_000, 3, 0),
                worker("b", Set.of(), 9_000, 0, 0), worker("c", Set.of(), 9_000, 0, 0));
        assertThat(RouteChooser.choose("m", null, live, "b")).contains(new RouteChooser.Choice("a", true));
        assertThat(RouteChooser.choose("other", null, live, "b")).contains(new RouteChooser.Choice("b", true));
    }

    @Test
    void noLiveWorkerNoChoice() {
        assertThat(RouteChooser.choose("m", null, List.of(), null)).isEmpty();
    }

    @Test
    void oneConversationSticksToOneWorkerAndConversationsSpread() {
        var live = List.of(worker("a", Set.of("m"), 0, 0, 0), worker("b", Set.of("m"), 0, 0, 0),
                worker("c", Set.of("m"), 0, 0, 0));
        Map<String, Integer> perWorker = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            String key = "conversation-" + i;
            String first = RouteChooser.choose("m", key, live, null).orElseThrow().worker();
            assertThat(RouteChooser.choose("m", key, live, null).orElseThrow().worker()).isEqualTo(first);
            perWorker.merge(first, 1, Integer::sum);
        }
        assertThat(perWorker).hasSize(3);
        assertThat(perWorker.values()).allSatisfy(n -> assertThat(n).isBetween(60, 140));
    }

    @Test
    void aWorkerLeavingMovesOnlyItsOwnConversations() {
        var three = List.of(worker("a", Set.of("m"), 0, 0, 0), worker("b", Set.of("m"), 0, 0, 0),
                worker("c", Set.of("m"), 0, 0, 0));
        var two = three.subList(0, 2);
        for (int i = 0; i < 200; i++) {
            String key = "k" + i;
            String before = RouteChooser.choose("m", key, three, null).orElseThrow().worker();
            String after = RouteChooser.choose("m", key, two, null).orElseThrow().worker();
            if (!before.equals("c")) assertThat(after).isEqualTo(before);
        }
    }

    @Test
    void aBusyPrefixWorkerGivesWayToAnIdleOne() {
        String key = "conversation";
        var idle = List.of(worker("a", Set.of("m"), 0, 0, 0), worker("b", Set.of("m"), 0, 0, 0));
        String preferred = RouteChooser.choose("m", key, idle, null).orElseThrow().worker();
        String other = preferred.equals("a") ? "b" : "a";
        var busy = List.of(worker(preferred, Set.of("m"), 0, RouteChooser.AFFINITY_SLACK, 0), worker(other, Set.of("m"), 0, 0, 0));
        assertThat(RouteChooser.choose("m", key, busy, null).orElseThrow().worker()).isEqualTo(other);
        var slightlyBusy = List.of(worker(preferred, Set.of("m"), 0, RouteChooser.AFFINITY_SLACK - 1, 0),
                worker(other, Set.of("m"), 0, 0, 0));
        assertThat(RouteChooser.choose("m", key, slightlyBusy, null).orElseThrow().worker()).isEqualTo(preferred);
    }
}
