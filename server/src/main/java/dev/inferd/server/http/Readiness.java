package dev.inferd.server.http;

/**
 * What {@code GET /ready} reports: whether the server can serve now (its models loaded, its database reachable),
 * for a load balancer or Kubernetes to send traffic only then. {@code GET /health} only says the process answers.
 */
@FunctionalInterface
public interface Readiness {

    /** Why the server is not ready, or null when it is. */
    String notReady();

    /** Ready once every model given at start is loaded, none failed. */
    static Readiness of(ModelRegistry models) {
        return models::notReady;
    }
}
