package dev.inferd.server.store;

import java.util.List;

/**
 * What a key may use: model ids and endpoints (such as {@code chat.completions}), each list either
 * {@code ["*"]} for all or the ones allowed.
 */
public record KeyScopes(List<String> models, List<String> endpoints) {

    public static final String ALL = "*";
    public static final KeyScopes EVERYTHING = new KeyScopes(List.of(ALL), List.of(ALL));

    public KeyScopes {
        models = List.copyOf(models.isEmpty() ? List.of(ALL) : models);
        endpoints = List.copyOf(endpoints.isEmpty() ? List.of(ALL) : endpoints);
    }

    public boolean allowsModel(String model) {
        return models.contains(ALL) || models.contains(model);
    }

    public boolean allowsEndpoint(String endpoint) {
        return endpoints.contains(ALL) || endpoints.contains(endpoint);
    }
}
