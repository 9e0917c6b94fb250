package dev.inferd.server.store;

/**
 * A gateway's claim on the load of one model: the worker that loads it, until the claim lapses.
 *
 * @param token tells this claim from a later one of the same model (a gateway takes over exactly the claim it read)
 * @param remainingMillis how long it stays in force, by the database's clock when it was read
 */
public record LoadClaim(String model, String worker, String token, long remainingMillis) {
}
