package dev.inferd.server.responses;

import java.util.Optional;

/**
 * Where responses are kept: in memory within a bound under {@code serve}, in the database per account
 * under {@code cloud}. {@code owner} is the account (empty under {@code serve}); one owner never sees
 * another's responses.
 */
public interface ResponseStore {

    void put(String owner, StoredResponse response);

    Optional<StoredResponse> get(String owner, String id);

    /** Whether there was such a response. */
    boolean delete(String owner, String id);
}
