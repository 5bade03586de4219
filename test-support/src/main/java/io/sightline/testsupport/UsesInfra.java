package io.sightline.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class (or method) that needs real servers. The condition is evaluated at class level
 * too, so a Spring test context is never built when its services are missing.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(InfraCondition.class)
public @interface UsesInfra {
  /** The services the test talks to. */
  Service[] value();
}
