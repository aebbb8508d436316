BvariableJP†Ì@Â*ÏCÀ_ÃDñÁ42NA.eåÂ
”¢À#ÖÔBPeCyRÃÛX$CmÎCíîC_UşÂ?˜BhtCË"%ÃĞë=CôA¥Ñ1Ã