package io.sightline.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sightline.routing.expansion.ExpansionException;
import io.sightline.routing.expansion.ImageSlot;
import io.sightline.routing.expansion.MmScheme;
import io.sightline.routing.expansion.RoutingTokens;
import io.sightline.routing.hashing.BlockHasher;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code block-hashes}: Dynamo-compatible routing tokens and block hashes for JSON-lines requests
 * on stdin (routing-core's {@link RoutingTokens} + {@link BlockHasher}; {@code
 * ../shared/reference/dynamo.md} §1 and §5).
 */
@Command(
    name = "block-hashes",
    mixinStandardHelpOptions = true,
    description = {
      "Compute Dynamo-compatible routing tokens and KV block hashes.",
      "",
      "Reads JSON lines on stdin:",
      "  {\"tokens\":[…],\"block_size\":N,\"lora_name\":null|str,\"cache_namespace\":null|str,",
      "   \"placeholder_token_id\":int?,\"images\":[{\"mm_hash\":u64,\"num_tokens\":int}]?,"
          + "\"scheme\":\"gen1\"|\"gen2\"?}",
      "and print one line each: {\"routing_token_ids\":[…],\"local_hashes\":[…],"
          + "\"sequence_hashes\":[…]}",
      "with 64-bit values as unsigned decimals. With a placeholder_token_id or images the scheme",
      "defaults to gen2 (placeholders must then match the images); otherwise off.",
      "A bad line gets {\"error\":…}; the others are still answered and the exit status is 1."
    })
final class BlockHashesCommand implements Callable<Integer> {
  private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  @Spec CommandSpec spec;
  @ParentCommand SightlineCli parent;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    int status = 0;
    BufferedReader in =
        new BufferedReader(new InputStreamReader(parent.stdin(), StandardCharsets.UTF_8));
    String line;
    int lineNo = 0;
    while ((line = in.readLine()) != null) {
      lineNo++;
      if (line.isBlank()) {
        continue;
      }
      String answer;
      try {
        answer = answer(line);
      } catch (BadInput e) {
        status = 1;
        int n = lineNo;
        answer =
            Json.object(
                g -> {
                  g.writeStringField("error", e.getMessage());
                  g.writeNumberField("line", n);
                });
      }
      out.println(answer);
      out.flush();
    }
    return status;
  }

  static String answer(String line) throws BadInput {
    JsonNode req;
    try {
      req = Json.MAPPER.readTree(line);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new BadInput("not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new BadInput("not valid JSON: " + e.getMessage());
    }
    if (req == null || !req.isObject()) {
      throw new BadInput("expected a JSON object");
    }
    int[] tokens = tokens(req.path("tokens"));
    JsonNode bs = req.path("block_size");
    if (!bs.isIntegralNumber() || !bs.canConvertToInt() || bs.asInt() <= 0) {
      throw new BadInput("block_size must be a positive integer");
    }
    String lora = optionalString(req, "lora_name");
    String ns = optionalString(req, "cache_namespace");
    List<ImageSlot> images = images(req.path("images"));
    JsonNode sc = req.path("scheme");
    JsonNode ph = req.path("placeholder_token_id");
    boolean hasPlaceholder = !(ph.isMissingNode() || ph.isNull());
    MmScheme scheme;
    if (sc.isMissingNode() || sc.isNull()) {
      // Dynamo's current scheme whenever the request is multimodal.
      scheme = images.isEmpty() && !hasPlaceholder ? MmScheme.OFF : MmScheme.GEN2;
    } else {
      scheme =
          MmScheme.parse(sc.asText())
              .filter(s -> sc.isTextual())
              .orElseThrow(() -> new BadInput("scheme must be \"gen1\", \"gen2\" or \"off\""));
    }
    RoutingTokens rt;
    if (!hasPlaceholder) {
      if (!images.isEmpty() && scheme != MmScheme.OFF) {
        throw new BadInput("images need a placeholder_token_id");
      }
      rt = RoutingTokens.textOnly(tokens);
    } else {
      if (!ph.isIntegralNumber() || ph.asLong() < 0 || ph.asLong() > 0xFFFF_FFFFL) {
        throw new BadInput("placeholder_token_id must be an integer in [0, 2^32)");
      }
      try {
        rt = RoutingTokens.expand(tokens, (int) ph.asLong(), images, scheme, OptionalInt.empty());
      } catch (ExpansionException e) {
        throw new BadInput(e.getMessage());
      }
    }
    BlockHasher hasher = BlockHasher.of(bs.asInt(), lora, ns);
    long[] local = rt.localHashes(hasher);
    long[] seq = BlockHasher.sequenceHashes(local);
    int[] ids = rt.tokenIds();
    return Json.object(
        g -> {
          Json.unsignedIntArray(g, "routing_token_ids", ids);
          Json.unsignedArray(g, "local_hashes", local);
          Json.unsignedArray(g, "sequence_hashes", seq);
        });
  }

  private static int[] tokens(JsonNode n) throws BadInput {
    if (!n.isArray()) {
      throw new BadInput("tokens must be an array of integers");
    }
    int[] out = new int[n.size()];
    for (int i = 0; i < out.length; i++) {
      JsonNode t = n.get(i);
      if (!t.isIntegralNumber()
          || !t.canConvertToLong()
          || t.asLong() < 0
          || t.asLong() > 0xFFFF_FFFFL) {
        throw new BadInput("tokens[" + i + "] is not a token id in [0, 2^32): " + t);
      }
      out[i] = (int) t.asLong(); // u32 bit pattern, hashed as little-endian u32
    }
    return out;
  }

  private static List<ImageSlot> images(JsonNode n) throws BadInput {
    if (n.isMissingNode() || n.isNull()) {
      return List.of();
    }
    if (!n.isArray()) {
      throw new BadInput("images must be an array");
    }
    List<ImageSlot> out = new ArrayList<>();
    for (int i = 0; i < n.size(); i++) {
      JsonNode img = n.get(i);
      JsonNode h = img.path("mm_hash");
      BigInteger v;
      if (h.isIntegralNumber()) {
        v = h.bigIntegerValue();
      } else if (h.isTextual() && h.asText().matches("[0-9]{1,20}")) {
        v = new BigInteger(h.asText());
      } else {
        throw new BadInput("images[" + i + "].mm_hash must be an unsigned 64-bit integer");
      }
      if (v.signum() < 0 || v.compareTo(U64_MAX) > 0) {
        throw new BadInput("images[" + i + "].mm_hash is outside [0, 2^64)");
      }
      JsonNode nt = img.path("num_tokens");
      if (!nt.isIntegralNumber() || !nt.canConvertToInt() || nt.asInt() < 0) {
        throw new BadInput("images[" + i + "].num_tokens must be a non-negative integer");
      }
      out.add(new ImageSlot(v.longValue(), nt.asInt()));
    }
    return out;
  }

  private static String optionalString(JsonNode req, String field) throws BadInput {
    JsonNode n = req.path(field);
    if (n.isMissingNode() || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw new BadInput(field + " must be a string or null");
    }
    return n.asText();
  }

  /** One input line is unusable. */
  static final class BadInput extends Exception {
    BadInput(String message) {
      super(message, null, false, false);
    }
  }
}
