package io.sightline.registry.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.sightline.routing.expansion.MmScheme;
import java.io.IOException;
import java.util.Locale;

/**
 * The Jackson 2 mapper for registry JSON (cards, workers, REST bodies, etcd values, SSE data).
 * Strict on input: unknown fields, trailing garbage, duplicate keys and nulls for primitives are
 * errors (with the JSON path), so a typo in a card is refused instead of silently ignored.
 */
public final class RegistryJson {
  private static final ObjectMapper MAPPER = build();

  private RegistryJson() {}

  /** The shared, thread-safe mapper. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  private static ObjectMapper build() {
    SimpleModule module = new SimpleModule("sightline-registry");
    module.addSerializer(
        MmScheme.class,
        new JsonSerializer<>() {
          @Override
          public void serialize(MmScheme value, JsonGenerator gen, SerializerProvider p)
              throws IOException {
            gen.writeString(value.name().toLowerCase(Locale.ROOT));
          }
        });
    module.addDeserializer(
        MmScheme.class,
        new JsonDeserializer<>() {
          @Override
          public MmScheme deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            String text = p.getValueAsString();
            if (text != null) {
              for (MmScheme m : MmScheme.values()) {
                if (m.name().toLowerCase(Locale.ROOT).equals(text)) {
                  return m;
                }
              }
            }
            return (MmScheme)
                ctx.handleWeirdStringValue(
                    MmScheme.class, text, "unknown mm_scheme (expected gen1, gen2 or off)");
          }
        });
    return JsonMapper.builder()
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
        .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
        .addModule(module)
        .build();
  }
}
