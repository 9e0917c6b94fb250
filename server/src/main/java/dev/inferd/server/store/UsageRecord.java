package dev.inferd.server.store;

import java.math.BigDecimal;

/**
 * One API request as metered: its account, key, model (null when the request named none), endpoint, tokens,
 * seconds of audio (in milliseconds), final status (499 when the client left first), latency, cost in US dollars
 * and time (epoch ms).
 */
public record UsageRecord(String id, String accountId, String keyId, String model, String endpoint, int promptTokens,
                          int completionTokens, int cachedTokens, long audioMillis, int status, long latencyMillis,
                          BigDecimal costUsd, long at) {
}
