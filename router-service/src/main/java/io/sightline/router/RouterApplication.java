package io.sightline.router;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * The router service: routing API over HTTP, KV event ingestion, replicated state. Everything is
 * wired by auto-configuration ({@link RouterAutoConfiguration}, the ingestion and registry ones);
 * no component scanning, so embedding apps (standalone) combine the same auto-configurations
 * without picking up beans twice.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class RouterApplication {
  public static void main(String[] args) {
    SpringApplication.run(RouterApplication.class, args);
  }
}
