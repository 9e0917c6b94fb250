package dev.inferd.server.cloud;

import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.http.ServerResponse;

/** A part of the hosted deployment that answers a whole path prefix itself ({@code /admin/}, {@code /dashboard}). */
@FunctionalInterface
public interface CloudRoute {
    void handle(ServerRequest request, ServerResponse response);
}
