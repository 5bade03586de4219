/**
 * The routing API shared by the router (in-process) and its HTTP clients (the gateway). Plain
 * records + one interface; Jackson 2 serialisable.
 */
package io.sightline.router.api;
