package dev.inferd.server.responses;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MemoryResponseStoreTest {

    private static StoredResponse response(String id, int size) {
        return new StoredResponse(id, 0, "x".repeat(size), "[]", "[]");
    }

    @Test
    void theLeastRecentlyUsedGoFirstBeyondTheCount() {
        var store = new MemoryResponseStore(2, 1_000_000);
        store.put("", response("a", 1));
        store.put("", response("b", 1));
        assertThat(store.get("", "a")).isPresent(); // a is now more recent than b
        store.put("", response("c", 1));
        assertThat(store.get("", "b")).isEmpty();
        assertThat(store.get("", "a")).isPresent();
        assertThat(store.get("", "c")).isPresent();
    }

    @Test
    void theByteBoundDropsTheOldestAndRefusesWhatCanNeverFit() {
        long one = response("a", 1000).size();
        var store = new MemoryResponseStore(100, 2 * one);
        store.put("", response("a", 1000));
        store.put("", response("b", 1000));
        store.put("", response("c", 1000));
        assertThat(store.size()).isEqualTo(2);
        assertThat(store.get("", "a")).isEmpty();
        store.put("", response("huge", 10_000));
        assertThat(store.get("", "huge")).isEmpty();
        assertThat(store.size()).isEqualTo(2);
    }

    @Test
    void ownersSeeOnlyTheirOwn() {
        var store = MemoryResponseStore.withDefaults();
        store.put("acct_1", response("r", 1));
        assertThat(store.get("acct_2", "r")).isEmpty();
        assertThat(store.delete("acct_2", "r")).isFalse();
        assertThat(store.delete("acct_1", "r")).isTrue();
        assertThat(store.get("acct_1", "r")).isEmpty();
    }
}
