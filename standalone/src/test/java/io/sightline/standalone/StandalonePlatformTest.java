package io.sightline.standalone;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The whole embedded platform on a random port, with fast simulated workers. One annotation so
 * every end-to-end test class shares one cached application context (one start-up per run).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "sightline.standalone.workers=4",
      "sightline.standalone.worker-speedup=1000",
      "sightline.standalone.banner=false",
      // The scenarios' local image server listens on 127.0.0.1: allow it explicitly (SSRF guard).
      "sightline.gateway.media.trusted-hosts=127.0.0.1",
    })
@interface StandalonePlatformTest {}
