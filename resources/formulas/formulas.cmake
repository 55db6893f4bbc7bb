# SPDX-License-Identifier: MIT
# Written by scripts/typeset-formulas.sh: the typeset formulas compiled in under :/formulas/.
set(poslab_formula_svgs
  07ae5b47a6195eba7226fa260c5cdf1b4fabf312.svg
  189329d8d2e27c281c7c958487648004d14526b8.svg
  27313fcf5241d161869c4d740c86801a23e26298.svg
  359d436505b589eddb1e67c96d999c609364fa2f.svg
  363d20ca620c4187b9923f4d0c78b82bd6823b2d.svg
  3c41d6d8bc945790fb4fd9615bbd19377311776d.svg
  50413ad243c6de45aa98e9c6ff2af3562d51e49c.svg
  9882a57174cd2485da035c990d8aeddb651b96a6.svg
  a6aed5b04e33de6ddb9086d2ce51915eb6183889.svg
  a92e420c454b6778cbcebc49e2c9a67e5b923211.svg
  a9ed5f5fbcd263cf4c1697bad9a8a93982059372.svg
  bfa14e4c66d6b3ec702129a2135155c31d7d702d.svg
  c9840eb1c2282a4b8e903c3463d8f700dc59b1c1.svg
  ce44a785d11c03fa1f64e9250dedb0cecb3ed541.svg
  e7c3aaba93428fd6757619fe84a47b1c73a29dab.svg
)
