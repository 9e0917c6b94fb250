package dev.inferd.engine.grammar;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** Schemas and outputs as plain Java trees, read with Jackson (as the server reads requests). */
public final class MiniJsonSchemas {
    static final JsonMapper MAPPER = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    private MiniJsonSchemas() {
    }

    public static Object parse(String json) {
        return MAPPER.readValue(json, Object.class);
    }
}
