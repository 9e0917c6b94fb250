package dev.inferd.server.responses;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Responses in memory, the least recently used dropped first beyond a count or a byte total. */
public final class MemoryResponseStore implements ResponseStore {

    public static final int DEFAULT_MAX_RESPONSES = 1000;
    public static final long DEFAULT_MAX_BYTES = 64L * 1024 * 1024;

    private final int maxResponses;
    private final long maxBytes;
    private final LinkedHashMap<String, StoredResponse> responses = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;

    public MemoryResponseStore(int maxResponses, long maxBytes) {
        if (maxResponses < 0 || maxBytes < 0) throw new IllegalArgumentException("bounds must not be negative");
        this.maxResponses = maxResponses;
        this.maxBytes = maxBytes;
    }

    public static MemoryResponseStore withDefaults() {
        return new MemoryResponseStore(DEFAULT_MAX_RESPONSES, DEFAULT_MAX_BYTES);
    }

    @Override
    public synchronized void put(String owner, StoredResponse response) {
        if (response.size() > maxBytes || maxResponses == 0) return;
        StoredResponse old = responses.put(key(owner, response.id()), response);
        if (old != null) bytes -= old.size();
        bytes += response.size();
        Iterator<Map.Entry<String, StoredResponse>> eldest = responses.entrySet().iterator();
        while ((responses.size() > maxResponses || bytes > maxBytes) && eldest.hasNext()) {
            bytes -= eldest.next().getValue().size();
            eldest.remove();
        }
    }

    @Override
    public synchronized Optional<StoredResponse> get(String owner, String id) {
        return Optional.ofNullable(responses.get(key(owner, id)));
    }

    @Override
    public synchronized boolean delete(String owner, String id) {
        StoredResponse old = responses.remove(key(owner, id));
        if (old != null) bytes -= old.size();
        return old != null;
    }

    public synchronized int size() {
        return responses.size();
    }

    private static String key(String owner, String id) {
        return owner + "\u0000" + id;
    }
}
