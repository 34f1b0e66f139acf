#!/usr/bin/env node
console.log("widgets");
