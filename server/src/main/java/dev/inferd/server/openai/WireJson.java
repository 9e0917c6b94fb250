package dev.inferd.server.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.io.UncheckedIOException;

/**
 * The one JSON mapper of the wire layer. Record components are camelCase in Java and snake_case on
 * the wire; nulls are written (OpenAI's required-but-nullable fields such as {@code refusal} and
 * {@code finish_reason} must be present), so a field that must be absent says so on its record.
 */
public final class WireJson {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .disable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    static {
        // A long prompt is one long JSON string; Jackson's default cap (20 M chars) is below the body limit.
        MAPPER.getFactory().setStreamReadConstraints(
                StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build());
    }

    private WireJson() {
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** Compact UTF-8 JSON of a wire record. */
    public static byte[] bytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses a request body; anything that is not one JSON value is a 400 with OpenAI's wording. */
    public static JsonNode parse(byte[] body) {
        if (body.length == 0) {
            throw ApiError.unparsableJson("The body was empty.");
        }
        String text;
        try {
            // Jackson decodes overlong and out-of-range UTF-8 without complaint; the JDK's decoder refuses them.
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body)).toString();
        } catch (CharacterCodingException e) {
            throw ApiError.unparsableJson("The body is not valid UTF-8.");
        }
        try {
            JsonNode node = MAPPER.readTree(text);
            if (node == null || node.isMissingNode()) {
                throw ApiError.unparsableJson("The body was empty.");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw ApiError.unparsableJson(e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
