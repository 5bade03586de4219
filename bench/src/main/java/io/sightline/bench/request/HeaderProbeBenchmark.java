package io.sightline.bench.request;

import io.sightline.routing.multimodal.ImageHeaderProbe;
import io.sightline.routing.multimodal.ProbeResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Cost of reading one image's size from its header ({@link ImageHeaderProbe}), per format. The
 * inputs are the first 16 KiB of real images (what a Range GET returns); the JPEGs need a marker
 * walk past APPn/EXIF segments (the MPO one has its SOF after ~6 KiB of metadata).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HeaderProbeBenchmark {

  @Param({
    "pillow_hopper.png",
    "smg_large.jpg",
    "pillow_sugarshack_bad_mpo_header.jpg",
    "pillow_hopper.gif",
    "pillow_hopper.webp",
    "pillow_transparent.webp"
  })
  public String image;

  private byte[] bytes;

  @Setup
  public void load() {
    try (InputStream in =
        HeaderProbeBenchmark.class.getResourceAsStream("/request-images/" + image + ".head16k")) {
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!(ImageHeaderProbe.probe(bytes) instanceof ProbeResult.Dimensions)) {
      throw new IllegalStateException(image + " does not probe: " + ImageHeaderProbe.probe(bytes));
    }
  }

  @Benchmark
  public ProbeResult probe() {
    return ImageHeaderProbe.probe(bytes);
  }
}
