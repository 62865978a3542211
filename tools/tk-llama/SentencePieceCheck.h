//===- SentencePieceCheck.h - What SentencePiece trusts in a model file ---*- C++ -*-===//
//
// SentencePiece (0.1.97, Debian's) loads a model's precompiled character maps (its normalizer's
// and denormalizer's double-array tries) without checking them, then reads wherever their
// units point while it encodes and decodes: a malformed map crashed tk-llama. These checks run
// on the serialized model before SentencePiece sees it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace tk::llm {

/// Throws tk::Error (naming `what`) unless every precompiled character map in the serialized
/// SentencePiece ModelProto `proto` keeps each trie step and each normalized string it can reach
/// inside the map.
void checkSentencePieceCharsMaps(const std::string &proto, const std::string &what);

} // namespace tk::llm
