package shop
