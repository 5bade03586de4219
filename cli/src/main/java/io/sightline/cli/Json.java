package io.sightline.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/** One-line JSON output with unsigned 64-bit numbers. */
final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonFactory FACTORY = MAPPER.getFactory();

  private Json() {}

  interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  /** A compact JSON object written by {@code body}. */
  static String object(Body body) {
    StringWriter sw = new StringWriter();
    try (JsonGenerator g = FACTORY.createGenerator(sw)) {
      g.writeStartObject();
      body.write(g);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // StringWriter never throws
    }
    return sw.toString();
  }

  /** {@code {"error": message}} plus optional context fields. */
  static String error(String message) {
    return object(g -> g.writeStringField("error", message));
  }

  static void unsigned(JsonGenerator g, long v) throws IOException {
    g.writeNumber(Long.toUnsignedString(v));
  }

  static void unsignedArray(JsonGenerator g, String field, long[] values) throws IOException {
    g.writeArrayFieldStart(field);
    for (long v : values) {
      unsigned(g, v);
    }
    g.writeEndArray();
  }

  static void unsignedIntArray(JsonGenerator g, String field, int[] values) throws IOException {
    g.writeArrayFieldStart(field);
    for (int v : values) {
      g.writeNumber(Integer.toUnsignedLong(v));
    }
    g.writeEndArray();
  }
}
